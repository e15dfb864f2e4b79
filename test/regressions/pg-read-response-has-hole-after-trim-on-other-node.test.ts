/**
 * Bug: on shared PostgreSQL, one unary read through a node returned records with a hole in
 * the middle: `read seq_num=363 count=40` answered 363, 364, 365, 366, 377, 378, ... (found by
 * test/reliability/pg-multi-node-workflows, trim workflow, in about one run in four). The
 * read's node did not know yet of a trim acknowledged through another node (to 378), and read
 * the stream's batches in more than one query; between two of them the other node's sweep
 * removed the trimmed batches 367..376, and the next query started at the first batch left
 * (377..379, which holds the trim point). The first records came from before the removal,
 * the rest from after it: no one state of the stream has that sequence.
 *
 * Records below a trim point may still be read for a while (protocol §7.7, trims are
 * asynchronous), and a read may start past its start position when the records there were
 * trimmed; but one response never skips records after ones it returned, unless it skips to
 * the trim point itself.
 *
 * Node A reaches the database through a delaying proxy (150 ms each way), so each of its
 * queries takes 300 ms; node B (next to the database) sweeps every 50 ms. Each round B writes
 * 40 one-record batches, a 4-record batch [40, 44) and 10 more, A reads from 0 and, at a
 * different moment of that read each round, B appends a trim to 42: B's sweep removes the
 * batches below 40 ([40, 44) holds the trim point and stays).
 *
 * Expected: every response's seq nums are consecutive from its first record, or jump only to
 * the trim point (42).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { append, base64Record, PgCluster, type PgNode, show, sleep, trimRecord } from "../helpers/pg-cluster.js";

const BASIN = `read-hole-${process.pid}`;
/** When B trims, ms after A's read began: one of them falls between two of A's queries. */
const OFFSETS = [50, 150, 250, 350, 450, 550, 650, 750];
const TRIM = 42;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node({ delayMs: 0 });
  b = await cluster.node({ env: { SVC_LITE_SWEEP_MS: "50" } });
  expect((await b.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

/** Creates `name` through B and writes [0, 40) one record a batch, [40, 44) in one, [44, 54) one a batch. */
async function fill(name: string): Promise<void> {
  const created = await b.client.call("POST", "/v1/streams", {
    basin: BASIN,
    json: { stream: name, config: { retention_policy: { infinite: {} } } },
  });
  expect(created.status, show(created)).toBe(201);
  for (let i = 0; i < 54; i++) {
    if (i > 40 && i < 44) continue;
    const records = i === 40 ? [40, 41, 42, 43].map((k) => base64Record(`r${k}`)) : [base64Record(`r${i}`)];
    const r = await append(b.client, BASIN, name, records, { format: "base64" });
    expect(r.status, show(r)).toBe(200);
  }
}

describe("a read through a node that has not seen a trim acknowledged through another", () => {
  it("never has a hole after records it returned", async () => {
    const wrong: string[] = [];
    for (const [round, offset] of OFFSETS.entries()) {
      const name = `s${round}`;
      await fill(name);
      // A loads the stream (trim point 0, tail 54) before its database gets far away.
      const tail = await a.client.call("GET", `/v1/streams/${name}/records/tail`, { basin: BASIN });
      expect(tail.status, show(tail)).toBe(200);
      a.proxy!.setDelay(150);
      try {
        const read = a.client.call("GET", `/v1/streams/${name}/records`, {
          basin: BASIN,
          query: { seq_num: 0, count: 100 },
        });
        await sleep(offset);
        const trimmed = await append(b.client, BASIN, name, [trimRecord(TRIM)], { format: "base64" });
        expect(trimmed.status, show(trimmed)).toBe(200);
        const r = await read;
        expect(r.status, show(r)).toBe(200);
        const seqs = (r.json().records as { seq_num: number }[]).map((x) => x.seq_num);
        const hole = seqs.findIndex((s, i) => i > 0 && s !== seqs[i - 1]! + 1 && s !== TRIM);
        if (hole > 0)
          wrong.push(
            `trim ${offset} ms into the read: ${seqs.slice(0, hole).join(",")} then ${seqs.slice(hole, hole + 3).join(",")}...`,
          );
      } finally {
        a.proxy!.setDelay(0);
      }
    }
    expect(wrong, wrong.join("\n")).toEqual([]);
  }, 90_000);
});
