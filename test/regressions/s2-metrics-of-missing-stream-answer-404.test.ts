/**
 * Bug: the metrics of a basin or stream that does not exist answered 404 (`basin_not_found`,
 * `stream_not_found`) in S2's dialect too. S2's published API lists 200, 400, 403 and 408 for
 * `GET /v1/metrics/{basin}` and `/v1/metrics/{basin}/{stream}`, and S2's own metrics example
 * asks for a stream it never creates: through S2's SDK the call failed with a 404 S2 never
 * gives. Now a request in S2's dialect (S2's SDK: no protocol header, its User-Agent) gets
 * S2's empty answer, `200 {"values": []}`; svc's own dialect keeps the helpful 404 (docs/s2.md).
 * On lmdb and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";
import { sdkClient } from "../helpers/s2-sdk.js";

describe.each(["lmdb", "postgres"] as const)("metrics of what does not exist, on %s", (storage) => {
  let lite: Lite;
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  const basin = `s2-metrics-${process.pid}`;

  beforeAll(async () => {
    db = storage === "postgres" ? await freshDatabase() : undefined;
    lite = await startLite(db ? { postgres: db.url } : {});
    expect((await liteClient(lite).call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await lite?.stop();
    await db?.drop();
  });

  const start = new Date(Date.now() - 3_600_000);
  const end = new Date(Date.now() + 30_000);

  it("S2's SDK gets an empty answer for a stream or basin never made", async () => {
    const s2 = sdkClient(lite);
    const stream = await s2.metrics.stream({ basin, stream: "never-made", set: "storage", start, end });
    expect(stream.values).toEqual([]);
    const other = await s2.metrics.basin({ basin: `${basin}-none`, set: "append-ops", start, end });
    expect(other.values).toEqual([]);
    // What exists still answers with its metric.
    expect((await s2.metrics.basin({ basin, set: "storage", start, end })).values.length).toBe(1);
  });

  it("svc's dialect still says which name is unknown (404)", async () => {
    const q = `set=storage&start=${Math.floor(start.getTime() / 1000)}&end=${Math.floor(end.getTime() / 1000)}`;
    const c = liteClient(lite);
    const r = await c.call("GET", `/v1/metrics/${basin}/never-made?${q}`);
    expect([r.status, r.json().code]).toEqual([404, "stream_not_found"]);
    const b = await c.call("GET", `/v1/metrics/${basin}-none?${q.replace("storage", "append-ops")}`);
    expect([b.status, b.json().code]).toEqual([404, "basin_not_found"]);
  });
});
