/**
 * Bug: on shared PostgreSQL, a read through a node that had appends of its own in flight
 * resolved its start against that node's own tail, which does not move while its appends are
 * in flight, even when another node had acknowledged appends beyond it before the read began:
 * a read at a position T that another node had acked answered `416 {"tail": 1004}` for
 * T = 1007, and with `clamp=true` readers got records BELOW the seq_num they asked for.
 * (Check-tail had been fixed for the same cause; reads had not.)
 *
 * Node B reaches the database through a delaying proxy (100 ms each way) and has unary
 * appends of its own in flight all the time (two background writers); node A appends three
 * records, acked up to T, and B then reads.
 *
 * Expected: a read or check-tail through any node reflects every append acknowledged before
 * it started: from T-3 it returns A's three records; at T (with or without clamp, with or
 * without wait) it answers 416 with a tail ≥ T or records at ≥ T; check-tail says ≥ T. A read never returns records
 * below its start.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { append, PgCluster, type PgNode, show } from "../helpers/pg-cluster.js";

const ROUNDS = 25;
const BASIN = `stale-read-${process.pid}`;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node();
  b = await cluster.node({ delayMs: 100 });
  expect((await a.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
  expect(
    (
      await a.client.call("POST", "/v1/streams", {
        basin: BASIN,
        json: { stream: "s", config: { retention_policy: { infinite: {} } } },
      })
    ).status,
  ).toBe(201);
  expect((await append(b.client, BASIN, "s", [{ body: "b" }])).status).toBe(200); // B has it loaded
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

type Seq = { seq_num: number; body?: string };

/** One of five reads through B, T being the end of A's acked append; a message when it is wrong. */
async function check(kind: number, t: number): Promise<string | undefined> {
  const path = "/v1/streams/s/records";
  if (kind === 0) {
    const r = await b.client.call("GET", path, { basin: BASIN, query: { seq_num: t - 3, count: 3 } });
    const got = r.status === 200 ? (r.json().records as Seq[]).map((x) => `${x.seq_num}:${x.body}`) : [];
    const want = [0, 1, 2].map((k) => `${t - 3 + k}:a${k}`);
    return JSON.stringify(got) === JSON.stringify(want)
      ? undefined
      : `read from ${t - 3} (A acked up to ${t}): ${show(r)}`;
  }
  if (kind === 3) {
    const r = await b.client.call("GET", `${path}/tail`, { basin: BASIN });
    return r.status === 200 && r.json().tail.seq_num >= t ? undefined : `check-tail (A acked up to ${t}): ${show(r)}`;
  }
  // 1: at T; 2: at T with clamp; 4: at T with clamp, waiting up to a second for records.
  const clamp = kind !== 1;
  const r = await b.client.call("GET", path, {
    basin: BASIN,
    query: { seq_num: t, clamp, ...(kind === 4 ? { wait: 1 } : {}) },
  });
  if (r.status === 416 && r.json().tail.seq_num >= t) return undefined;
  if (r.status === 200 && (r.json().records as Seq[]).every((x) => x.seq_num >= t)) return undefined;
  const seqs = r.status === 200 ? ` (records ${(r.json().records as Seq[]).map((x) => x.seq_num).join(",")})` : "";
  return `read at ${t}${clamp ? " with clamp" : ""}${kind === 4 ? " and wait=1" : ""} (A acked up to ${t}): ${r.status} ${r.status === 200 ? seqs : r.text()}`;
}

describe("reads through a node with appends in flight", () => {
  it("reflect every append acknowledged before they started, and never start below their start", async () => {
    let stop = false;
    const writers = [0, 1].map(async () => {
      while (!stop)
        await b.client
          .call("POST", "/v1/streams/s/records", { basin: BASIN, json: { records: [{ body: "b" }] } })
          .catch(() => undefined);
    });
    let wrong: string | undefined;
    try {
      for (let i = 0; i < ROUNDS && wrong === undefined; i++) {
        const acked = await append(a.client, BASIN, "s", [{ body: "a0" }, { body: "a1" }, { body: "a2" }]);
        expect(acked.status, show(acked)).toBe(200);
        const problem = await check(i % 5, acked.json().end.seq_num);
        if (problem) wrong = `round ${i}: ${problem}`;
      }
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(wrong, wrong).toBeUndefined();
  }, 60_000);
});
