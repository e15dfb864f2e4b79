/**
 * Bug: on shared PostgreSQL, delete-on-empty could delete a stream just after another node had
 * acknowledged an append to it: the acknowledged record was gone (the append answered 200 at
 * seq 1, the next request 409 stream_deletion_pending, then 404). The sweeping node decided
 * from the stream's state as it had read it, then marked the stream deleted without checking
 * that nothing had been appended since. (2 of 14 runs.)
 *
 * Streams have `retention_policy.age: 1` and `delete_on_empty.min_age_secs: 1`. Node P runs
 * the periodic sweep (started first, so it takes it; SVC_LITE_SWEEP_MS=100) and reaches the
 * database through a delaying proxy (50 ms each way), so its decision and its write are
 * apart. Node A appends once to two streams named to be swept one after the other, a pilot
 * and a target; once the pilot is seen deleted as empty (the sweep is now at the target), A
 * appends to the target again, at offsets that land between the sweep's decision and its
 * write on the current code. (Should the pilot never be deleted, A appends anyway.)
 *
 * Expected: a stream that received an acknowledged append is not deleted before `min_age`
 * after that append: CHECK_AFTER_MS after the ack, the stream is there with the record.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { append, PgCluster, type PgNode, show, sleep } from "../helpers/pg-cluster.js";

const ENV = { SVC_LITE_SWEEP_MS: "100" };
const CONFIG = { retention_policy: { age: 1 }, delete_on_empty: { min_age_secs: 1 } };
/** Offsets (ms) after the pilot is seen deleted at which A appends to the target, one per round. */
const OFFSETS = [1275, 1200, 1350, 1150, 1425, 1225, 1300];
/** How long the pilot is watched at most. */
const PILOT_MS = 6_000;
/** No round starts after this much time (a sweep slower than today's must not time the test out). */
const BUDGET_MS = 36_000;
/** When, after the second append's ack, the stream is checked (well below min_age). */
const CHECK_AFTER_MS = 400;
const BASIN = `empty-race-${process.pid}`;

let cluster: PgCluster;
let a: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  await cluster.node({ delayMs: 50, env: ENV }); // P, far from the database
  await sleep(1_000); // P takes the periodic sweep before any other node exists
  a = await cluster.node({ env: ENV });
  expect((await a.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

/** When `stream` was first seen deleted (polled through A), or undefined after PILOT_MS. */
async function seenDeleted(stream: string): Promise<number | undefined> {
  const deadline = Date.now() + PILOT_MS;
  while (Date.now() < deadline) {
    const r = await a.client.call("GET", `/v1/streams/${stream}/records/tail`, { basin: BASIN });
    if (r.status !== 200) return Date.now();
    await sleep(10);
  }
  return undefined;
}

describe("delete-on-empty", () => {
  it("never deletes a stream right after an acknowledged append", async () => {
    const began = Date.now();
    for (const [i, offset] of OFFSETS.entries()) {
      if (Date.now() - began > BUDGET_MS) break;
      // Swept in name order: the pilot, then the target.
      const [pilot, target] = [`r${i}-a`, `r${i}-b`];
      for (const s of [pilot, target])
        expect(
          (await a.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: s, config: CONFIG } })).status,
        ).toBe(201);
      for (const s of [pilot, target]) expect((await append(a.client, BASIN, s, [{ body: "first" }])).status).toBe(200);
      const seen = await seenDeleted(pilot);
      if (seen !== undefined) await sleep(seen + offset - Date.now());
      const second = await append(a.client, BASIN, target, [{ body: "second" }]);
      if (second.status !== 200) continue; // deleted as empty before it: no acknowledged append lost
      const at = second.json().start.seq_num as number;
      await sleep(CHECK_AFTER_MS);
      const read = await a.client.call("GET", `/v1/streams/${target}/records`, {
        basin: BASIN,
        query: { seq_num: at },
      });
      expect(
        read.status,
        `round ${i} (offset ${offset} ms): the record acked at seq ${at}, read ${CHECK_AFTER_MS} ms after its ack: ${show(read)}`,
      ).toBe(200);
      expect(read.json().records.map((r: { body: string }) => r.body)).toEqual(["second"]);
    }
  }, 60_000);
});
