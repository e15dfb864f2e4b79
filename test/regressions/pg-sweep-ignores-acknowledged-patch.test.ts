/**
 * Bug: the background sweep acted on the stream config it had listed at the start of its pass,
 * so a PATCH acknowledged meanwhile through another node was ignored and data the user had
 * chosen to keep was deleted (the trial's numbers are in sweep-ignores-acknowledged-patch.test.ts,
 * which makes the race certain on each storage). This is the trial's own shape: node P runs the
 * periodic sweep (SVC_LITE_SWEEP_MS=100) and reaches the database through a proxy adding 2 ms
 * each way; the basin holds 20 other streams; node A creates the targets and PATCHes them.
 *
 * - Delete on empty: twelve empty streams with `min_age_secs: 1`, each PATCHed to
 *   `min_age_secs: 0` at its own offset between 0.3 and 1.6 s after creation (on the old code
 *   a third to a half of such rounds lost the stream).
 * - Retention: twelve streams with `age: 3`, one record each, each PATCHed to infinite retention
 *   at its own offset between 1.5 and 2.9 s after its append was sent (the ones answered before
 *   their record could expire are judged: a PATCH answered after expiry came too late).
 *
 * Expected: every stream whose PATCH was answered 200 is still there seconds later, and every
 * record an acknowledged infinite retention keeps is still read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { append, codeOf, PgCluster, type PgNode, show, sleep } from "../helpers/pg-cluster.js";

const ENV = { SVC_LITE_SWEEP_MS: "100" };
const BASIN = `sweep-patch-${process.pid}`;
const TARGETS = 12;

let cluster: PgCluster;
let a: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  await cluster.node({ delayMs: 2, env: ENV });
  await sleep(1_000); // the proxied node takes the periodic sweep before any other node exists
  a = await cluster.node({ env: ENV });
  expect((await a.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
  for (let i = 0; i < 20; i++) {
    const r = await a.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: `filler-${i}` } });
    expect(r.status).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

async function create(stream: string, config: object): Promise<void> {
  const r = await a.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream, config } });
  expect(r.status, show(r)).toBe(201);
}

/** PATCHes `stream` at time `at`; true when answered 200 (a stream already deleted as empty answers 409). */
async function patchAt(at: number, stream: string, config: object): Promise<boolean> {
  await sleep(at - Date.now());
  const r = await a.client.call("PATCH", `/v1/streams/${stream}`, { basin: BASIN, json: config });
  if (r.status !== 200) expect(codeOf(r), `PATCH of ${stream}: ${show(r)}`).toBe("stream_deletion_pending");
  return r.status === 200;
}

describe("the sweep obeys PATCHes acknowledged through another node", () => {
  it("keeps empty streams whose delete-on-empty was turned off", async () => {
    const names = Array.from({ length: TARGETS }, (_, i) => `empty-${i}`);
    const created: number[] = [];
    for (const name of names) {
      await create(name, { delete_on_empty: { min_age_secs: 1 } });
      created.push(Date.now());
    }
    const answered = await Promise.all(
      names.map((name, i) =>
        patchAt(created[i]! + 300 + (i * 1300) / (TARGETS - 1), name, { delete_on_empty: { min_age_secs: 0 } }),
      ),
    );
    const kept = names.filter((_, i) => answered[i]);
    expect(kept.length, "PATCHes answered 200 (the others came after the stream was deleted)").toBeGreaterThanOrEqual(
      4,
    );
    await sleep(2_500); // many sweep periods
    const gone: string[] = [];
    for (const name of kept) {
      const r = await a.client.call("GET", `/v1/streams/${name}`, { basin: BASIN });
      if (r.status !== 200) gone.push(`${name}: ${show(r)}`);
    }
    expect(gone, "streams deleted after a PATCH turning delete-on-empty off was answered 200").toEqual([]);
  }, 60_000);

  it("keeps records whose retention was made infinite before they expired", async () => {
    const names = Array.from({ length: TARGETS }, (_, i) => `aging-${i}`);
    /** When each append was sent: its record arrived after, so it expires no sooner than this + 3 s. */
    const sent: number[] = [];
    for (const name of names) {
      await create(name, { retention_policy: { age: 3 } });
      sent.push(Date.now());
      const r = await append(a.client, BASIN, name, [{ body: `kept ${name}` }]);
      expect(r.status, show(r)).toBe(200);
    }
    // PATCHed between 1.5 and 2.9 s after: close to expiry, where the sweep may have judged it expired.
    const answeredAt = await Promise.all(
      names.map(async (name, i) => {
        const ok = await patchAt(sent[i]! + 1_500 + (i * 1_400) / (TARGETS - 1), name, {
          retention_policy: { infinite: {} },
        });
        expect(ok, `PATCH of ${name} answered 200`).toBe(true);
        return Date.now();
      }),
    );
    // Only a PATCH answered before the record could expire binds the sweep (after, removing it was right).
    const bound = names.filter((_, i) => answeredAt[i]! < sent[i]! + 3_000);
    expect(bound.length, "PATCHes answered before their record could expire").toBeGreaterThanOrEqual(6);
    await sleep(2_500);
    const lost: string[] = [];
    for (const name of bound) {
      const r = await a.client.call("GET", `/v1/streams/${name}/records`, { basin: BASIN, query: { seq_num: 0 } });
      const bodies = r.status === 200 ? (r.json().records as { body: string }[]).map((x) => x.body) : [];
      if (bodies.join() !== `kept ${name}`) lost.push(`${name}: ${show(r)}`);
    }
    expect(lost, "records removed after a PATCH making retention infinite was answered 200").toEqual([]);
  }, 60_000);
});
