/**
 * Bug: on shared PostgreSQL, a PATCH of a stream (or basin) through one node could undo a
 * DELETE made through another. The PATCH read the stream, then wrote the whole stored record
 * back with its new config, `deleted_at: null` included; when the DELETE committed in between,
 * it answered 202 but the stream lived on: both nodes answered `409 stream_deletion_pending`
 * for ever (their loaded states stayed sealed), and a node started afterwards served the old
 * records and accepted appends. The same for basins (a PATCH of the basin revived a basin
 * whose streams were being deleted).
 *
 * Node B (the PATCH) reaches the database through a delaying proxy (20 ms each way), so its
 * read and its write are apart; A's DELETE is sent at offsets that land between them.
 *
 * Expected: once a DELETE has answered 202, the stream (basin) ends up deleted: within
 * GONE_WITHIN_MS every node, a node started afterwards included, answers 404, and no listing
 * shows it with `deleted_at: null` meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { append, codeOf, PgCluster, type PgNode, show, sleep } from "../helpers/pg-cluster.js";

const ENV = { SVC_LITE_DELETE_GRACE_MS: "300", SVC_LITE_SWEEP_MS: "200" };
/** Offsets (ms) after B's PATCH at which A's DELETE is sent. */
const OFFSETS = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110];
/** A deleted stream or basin is gone (404) on every node within this (grace 300 ms, sweeps every 200 ms). */
const GONE_WITHIN_MS = 8_000;
const BASIN = `patch-del-${process.pid}`;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;
/** Started before the rounds: its first request for each stream is a load. */
let c: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node({ env: ENV });
  b = await cluster.node({ delayMs: 20, env: ENV });
  c = await cluster.node({ env: ENV });
  expect((await a.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
  // Warm B's connections up.
  expect((await b.client.call("GET", "/v1/streams", { basin: BASIN })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

/** Polls until `gone()` holds on every node, for at most GONE_WITHIN_MS; returns what it last saw. */
async function untilGone(what: string, probe: (n: PgNode) => Promise<string>): Promise<void> {
  const deadline = Date.now() + GONE_WITHIN_MS;
  let seen: string[] = [];
  for (;;) {
    seen = [await probe(a), await probe(b), await probe(c)];
    if (seen.every((s) => s === "404") || Date.now() > deadline) break;
    await sleep(200);
  }
  expect(seen, `${what}, ${GONE_WITHIN_MS} ms after its DELETE answered 202, through A, B and a fresh node`).toEqual([
    "404",
    "404",
    "404",
  ]);
}

describe("a reconfiguration through one node racing a DELETE through another", () => {
  it("never revives a deleted stream", async () => {
    const deleted: string[] = [];
    for (const [i, offset] of OFFSETS.entries()) {
      const s = `s-${i}`;
      expect((await a.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: s } })).status).toBe(201);
      expect((await append(a.client, BASIN, s, [{ body: "x" }])).status).toBe(200);
      const patch = b.client.call("PATCH", `/v1/streams/${s}`, {
        basin: BASIN,
        json: { retention_policy: { age: 3600 + i } },
      });
      await sleep(offset);
      const del = await a.client.call("DELETE", `/v1/streams/${s}`, { basin: BASIN });
      expect(del.status, show(del)).toBe(202);
      deleted.push(s);
      const p = await patch;
      expect([200, 404, 409], show(p)).toContain(p.status);
    }
    // Meanwhile no listing shows a deleted stream as live.
    for (const n of [a, b, c]) {
      const listed = (await n.client.call("GET", "/v1/streams", { basin: BASIN, query: { prefix: "s-" } })).json()
        .streams as { name: string; deleted_at: string | null }[];
      expect(
        listed.filter((x) => x.deleted_at === null).map((x) => x.name),
        "streams listed as live after their DELETE answered 202",
      ).toEqual([]);
    }
    for (const s of deleted) {
      await untilGone(`stream ${s}`, async (n) => {
        const r = await n.client.call("GET", `/v1/streams/${s}/records/tail`, { basin: BASIN });
        return r.status === 404 ? "404" : `${r.status} ${codeOf(r) ?? r.text()}`;
      });
    }
  }, 60_000);

  it("never revives a deleted basin", async () => {
    const deleted: string[] = [];
    for (const [i, offset] of OFFSETS.entries()) {
      const basin = `patch-del-b-${process.pid}-${i}`;
      expect((await a.client.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
      expect((await a.client.call("POST", "/v1/streams", { basin, json: { stream: "s" } })).status).toBe(201);
      expect((await append(a.client, basin, "s", [{ body: "x" }])).status).toBe(200);
      const patch = b.client.call("PATCH", `/v1/basins/${basin}`, { json: { create_stream_on_append: i % 2 === 0 } });
      await sleep(offset / 2);
      const del = await a.client.call("DELETE", `/v1/basins/${basin}`);
      expect(del.status, show(del)).toBe(202);
      deleted.push(basin);
      const p = await patch;
      expect([200, 404, 409], show(p)).toContain(p.status);
    }
    for (const n of [a, b, c]) {
      const listed = (await n.client.call("GET", "/v1/basins", { query: { prefix: "patch-del-b-" } })).json()
        .basins as { name: string; deleted_at: string | null }[];
      expect(
        listed.filter((x) => x.deleted_at === null).map((x) => x.name),
        "basins listed as live after their DELETE answered 202",
      ).toEqual([]);
    }
    for (const basin of deleted) {
      await untilGone(`basin ${basin}`, async (n) => {
        const r = await n.client.call("GET", `/v1/basins/${basin}`);
        return r.status === 404 ? "404" : `${r.status} ${codeOf(r) ?? r.text()}`;
      });
    }
  }, 60_000);
});
