/**
 * Bug: on shared PostgreSQL, creating a stream through one node while another node deleted its
 * basin left the basin "deleting" for ever. The create checked that the basin was active, then
 * wrote the stream; the DELETE, committed in between, had sealed only the streams it had
 * listed. The new stream stayed live in a deleting basin: it acked appends after the basin's
 * DELETE had answered 202, the sweep never removed the basin (it still had a live stream),
 * deleting it again was a no-op 202 and creating it again answered `409 basin_deletion_pending`
 * for ever. The same with a stream auto-created by an append (`create_stream_on_append`).
 *
 * Node B (the create) reaches the database through a delaying proxy (20 ms each way), so its
 * check and its write are apart; A's DELETE of the basin is sent at offsets that land between.
 *
 * Expected: either the create fails (409/404), or it succeeds and the stream is deleted with
 * the basin; no append sent after the basin's DELETE answered 202 is acknowledged; the basin
 * disappears (404 on every node, a node started afterwards included) within GONE_WITHIN_MS.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Reply } from "../helpers/lite.js";
import { append, codeOf, PgCluster, type PgNode, show, sleep } from "../helpers/pg-cluster.js";

const ENV = { SVC_LITE_DELETE_GRACE_MS: "300", SVC_LITE_SWEEP_MS: "200" };
/** Offsets (ms) after B's create at which A's DELETE of the basin is sent. */
const OFFSETS = [20, 40, 60, 80, 100, 120, 140];
/** A deleted basin is gone (404) on every node within this (grace 300 ms, sweeps every 200 ms). */
const GONE_WITHIN_MS = 8_000;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;
let c: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node({ env: ENV });
  b = await cluster.node({ delayMs: 20, env: ENV });
  c = await cluster.node({ env: ENV });
  expect((await b.client.call("GET", "/v1/basins")).status).toBe(200); // B's connections warm
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

/**
 * Per round: a new basin; `create(basin)` through B, A's DELETE of the basin `offset` ms later;
 * then appends through B and A must be refused, and the basin must go away on every node.
 */
async function rounds(tag: string, config: object, create: (basin: string) => Promise<Reply>): Promise<void> {
  const deleted: string[] = [];
  for (const [i, offset] of OFFSETS.entries()) {
    const basin = `${tag}-${process.pid}-${i}`;
    expect((await a.client.call("POST", "/v1/basins", { json: { basin, config } })).status).toBe(201);
    const made = create(basin);
    await sleep(offset);
    const del = await a.client.call("DELETE", `/v1/basins/${basin}`);
    expect(del.status, show(del)).toBe(202);
    deleted.push(basin);
    const r = await made;
    expect([200, 201, 404, 409], `round ${i}: the create through B: ${show(r)}`).toContain(r.status);
    for (const [node, n] of [
      ["B", b],
      ["A", a],
    ] as const) {
      const late = await append(n.client, basin, "s", [{ body: "after the basin's DELETE" }]);
      expect(
        late.status,
        `round ${i} (offset ${offset} ms): an append through ${node} sent after the basin's DELETE answered 202: ${show(late)}`,
      ).not.toBe(200);
    }
  }
  for (const basin of deleted) {
    const deadline = Date.now() + GONE_WITHIN_MS;
    let seen: string[] = [];
    for (;;) {
      seen = [];
      for (const n of [a, b, c]) {
        const r = await n.client.call("GET", `/v1/basins/${basin}`);
        seen.push(r.status === 404 ? "404" : `${r.status} ${codeOf(r) ?? r.text()}`);
      }
      if (seen.every((s) => s === "404") || Date.now() > deadline) break;
      await sleep(200);
    }
    expect(
      seen,
      `basin ${basin}, ${GONE_WITHIN_MS} ms after its DELETE answered 202, through A, B and a fresh node`,
    ).toEqual(["404", "404", "404"]);
  }
  const again = await a.client.call("POST", "/v1/basins", { json: { basin: deleted[0] } });
  expect(again.status, `creating ${deleted[0]} again: ${show(again)}`).toBe(201);
}

describe("a stream created through one node while another deletes its basin", () => {
  it("POST /streams: the basin still goes away, and nothing is appended after its DELETE", async () => {
    await rounds("mk-del", {}, (basin) => b.client.call("POST", "/v1/streams", { basin, json: { stream: "s" } }));
  }, 60_000);

  it("an auto-creating append: the basin still goes away, and nothing is appended after its DELETE", async () => {
    await rounds("auto-del", { create_stream_on_append: true }, (basin) =>
      b.client.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "auto" }] } }),
    );
  }, 60_000);
});
