/**
 * Found by a concurrency probe (acknowledged data lost): the retention sweep looked for the
 * first unexpired batch among the oldest 64 only. When 64 batches in a row had expired, it
 * found none and cut at the stream's tail, deleting every stored batch, the unexpired ones
 * after the 64th included. A writer making ~70 single-record appends a second on a stream
 * with a 4 s retention lost everything acknowledged in the previous ~2 s at every sweep; so
 * did any stream whose expired backlog reached 64 batches (after downtime, or a lowered age).
 * Now the sweep reads on, page by page, and never cuts past a batch it has seen expire.
 *
 * The lite runs in this process on a clock the test moves (it stamps arrivals and judges ages),
 * and the test runs a whole sweep when it wants one, instead of waiting for either.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `retention-cut-${process.pid}`;
let now = Date.now();

beforeAll(async () => {
  lite = await startLite({ inProcess: true, clock: () => now, env: { SVC_LITE_SWEEP_MS: "3600000" } });
  await createStreams(lite, basin, { s: { retention_policy: { age: 3600 } } });
});

afterAll(async () => {
  await lite?.stop();
});

const c = () => liteClient(lite);
const append = (body: string) => c().call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body }] } });

describe("the retention sweep", () => {
  it("removes only the expired prefix, however long it is", async () => {
    for (let i = 0; i < 70; i++) expect((await append(`old-${i}`)).status).toBe(200); // 70 batches
    now += 5_500;
    for (let i = 0; i < 20; i++) expect((await append(`new-${i}`)).status).toBe(200);
    // Now the 70 old batches are past a 5 s age and the 20 new ones are not.
    expect((await c().call("PATCH", "/v1/streams/s", { basin, json: { retention_policy: { age: 5 } } })).status).toBe(
      200,
    );
    await lite.sweep!();
    await lite.sweep!(); // a second pass cuts no further
    const read = await c().call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 0, count: 1000 } });
    expect(read.status).toBe(200);
    const bodies = (read.json().records as { body: string }[]).map((r) => r.body);
    expect(bodies).toEqual(Array.from({ length: 20 }, (_, i) => `new-${i}`));
    // The read starts at the 71st record: nothing before it is served, nothing after it lost.
    expect(read.json().records[0].seq_num).toBe(70);
  }, 30_000);
});
