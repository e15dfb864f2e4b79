/**
 * Metrics of svc lite (A10–A12), Prometheus `GET /metrics`, locations (A13–A15), defaults
 * shown as in effect, on lmdb (project `main`) and on PostgreSQL (project `postgres`). Known
 * traffic, then every metric set must report exactly the operations and metered bytes that
 * were appended and read, before and after a restart; every rule of the query is a 422 that
 * names it.
 */
import parsePrometheusTextFormat, { type PromFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";
import { scratchDir } from "../helpers/scratch.js";

const onPostgres = process.env.LITE_E2E_STORAGE === "postgres";
let lite: Lite;
let c: LiteClient;
let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
const basin = uniqueBasin("m");
const idle = uniqueBasin("i");
/** metered = 8 + 2·headers + Σ(name + value) + body (protocol.md §8.2). */
const batches = [
  [{ body: "hello" }, { body: "world!" }], // 13 + 14
  [{ body: "x".repeat(100), headers: [["k", "v"]] }], // 8 + 2 + 2 + 100
  [{ body: "" }, { body: "a" }, { body: "bc" }], // 8 + 9 + 10
];
const APPENDED_BYTES = 27 + 112 + 27;
const APPENDED_RECORDS = 6;

type Metric = Record<string, { name: string; unit?: string; interval?: string; values: unknown[] }>;

async function metrics(path: string, set: string, extra: Record<string, string | number> = {}): Promise<Metric[]> {
  const now = Math.floor(Date.now() / 1000);
  // A stream's storage is by minute only; everything else here by hour.
  const interval = path.split("/").length > 4 ? "minute" : "hour";
  const r = await c.call("GET", path, { query: { set, start: now - 7200, end: now + 60, interval, ...extra } });
  expect(r.status, r.text()).toBe(200);
  return r.json().values;
}

/** The sum of an accumulation's values, by name. */
function sums(values: Metric[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of values) {
    expect(Object.keys(m)).toEqual(["accumulation"]);
    const a = m.accumulation!;
    expect(a.interval).toBe("hour");
    out[a.name] = (a.values as [number, number][]).reduce((n, [t, v]) => (expect(t % 3600).toBe(0), n + v), 0);
  }
  return out;
}

function lastGauge(values: Metric[]): number {
  expect(values).toHaveLength(1);
  const g = values[0]!.gauge!;
  expect([g.name, g.unit]).toEqual(["storage", "bytes"]);
  return (g.values as [number, number][]).at(-1)![1];
}

/** Every set, after the known traffic of beforeAll: 4 appends (3 to s, 1 of 16 bytes to t), 1 read. */
async function expectEverySet(): Promise<void> {
  expect(sums(await metrics(`/v1/metrics/${basin}`, "append-ops"))).toEqual({ "append-ops": 4 });
  expect(sums(await metrics(`/v1/metrics/${basin}`, "append-throughput"))).toEqual({
    "append-throughput": APPENDED_BYTES + 16,
  });
  expect(sums(await metrics(`/v1/metrics/${basin}`, "read-ops"))).toEqual({ "read-ops": 1 });
  expect(sums(await metrics(`/v1/metrics/${basin}`, "read-throughput"))).toEqual({ "read-throughput": APPENDED_BYTES });
  expect(sums(await metrics(`/v1/metrics/${basin}`, "basin-ops"))).toEqual({
    append: 4,
    read: 1,
    "check-tail": 2,
    "create-stream": 2,
    "get-stream-config": 1,
  });
  expect(lastGauge(await metrics(`/v1/metrics/${basin}`, "storage"))).toBe(APPENDED_BYTES + 16);
  expect(lastGauge(await metrics(`/v1/metrics/${basin}/s`, "storage"))).toBe(APPENDED_BYTES);
  expect(lastGauge(await metrics(`/v1/metrics/${basin}/t`, "storage"))).toBe(16);
  const account = sums(await metrics("/v1/metrics", "account-ops"));
  expect(account).toMatchObject({ "create-basin": 2, append: 4, read: 1, "check-tail": 2 });
  const active = await metrics("/v1/metrics", "active-basins");
  expect(active).toHaveLength(1);
  expect(active[0]!.label!.name).toBe("active-basins");
  expect(active[0]!.label!.values).toContain(basin);
  expect(active[0]!.label!.values).not.toContain(idle);
}

beforeAll(async () => {
  const env = { SVC_LITE_SWEEP_MS: "200" };
  // The database outlives a restart of the node (the restart test), so this file owns it.
  db = onPostgres ? await freshDatabase() : undefined;
  lite = await startLite(db ? { postgres: db.url, env } : { dataDir: scratchDir("svc-metrics-"), env });
  c = liteClient(lite);
  expect((await c.call("POST", "/v1/basins", { json: { basin, location: "local" } })).status).toBe(201);
  expect((await c.call("POST", "/v1/basins", { json: { basin: idle } })).status).toBe(201);
  for (const s of ["s", "t"])
    expect((await c.call("POST", "/v1/streams", { basin, json: { stream: s } })).status).toBe(201);
  for (const records of batches)
    expect((await c.call("POST", "/v1/streams/s/records", { basin, json: { records } })).status).toBe(200);
  const read = await c.call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 0 } });
  expect(read.json().records).toHaveLength(APPENDED_RECORDS);
  expect((await c.call("GET", "/v1/streams/s/records/tail", { basin })).status).toBe(200);
  expect((await c.call("GET", "/v1/streams/t/records/tail", { basin })).status).toBe(200);
  expect((await c.call("GET", "/v1/streams/t", { basin })).status).toBe(200);
  // Stream t: 2 records of 8 metered bytes each (16), appended in one batch.
  expect(
    (await c.call("POST", "/v1/streams/t/records", { basin, json: { records: [{ body: "" }, { body: "" }] } })).status,
  ).toBe(200);
});

afterAll(async () => {
  await c.close();
  expect(await lite.stop()).toBe(0);
  await db?.drop();
});

describe("metric sets after known traffic", () => {
  it("report exact operations and metered bytes for every set", async () => {
    await expectEverySet();
  });

  it("Prometheus /metrics parses and matches the traffic", async () => {
    const r = await c.call("GET", "/metrics");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusTextFormat(r.text());
    const one = (name: string): PromFamily => families.find((f) => f.name === name) ?? expect.fail(`no ${name}`);
    expect(Number(one("svc_lite_appended_records_total").metrics[0]!.value)).toBe(APPENDED_RECORDS + 2);
    expect(Number(one("svc_lite_appended_bytes_total").metrics[0]!.value)).toBe(APPENDED_BYTES + 16);
    expect(Number(one("svc_lite_read_records_total").metrics[0]!.value)).toBe(APPENDED_RECORDS);
    expect(Number(one("svc_lite_read_bytes_total").metrics[0]!.value)).toBe(APPENDED_BYTES);
    expect(Number(one("svc_lite_storage_bytes").metrics[0]!.value)).toBe(APPENDED_BYTES + 16);
    const requests = one("svc_lite_requests_total");
    expect(requests.type).toBe("COUNTER");
    const count = (operation: string, status: string): number =>
      Number(
        requests.metrics.find((m) => m.labels?.operation === operation && m.labels?.status === status)?.value ?? 0,
      );
    expect(count("append", "200")).toBe(4);
    expect(count("create-basin", "201")).toBe(2);
    // The parser folds labelled histograms into one bucket map (it keeps no labels there), so
    // per-operation latency counts are checked through the counter above.
    const latency = one("svc_lite_request_duration_seconds");
    expect(latency.type).toBe("HISTOGRAM");
    expect(Object.keys(latency.metrics[0]!.buckets!)).toContain("+Inf");
    const sync = one("svc_lite_sync_duration_seconds").metrics[0]!;
    // lmdb times its waits for fsync; on PostgreSQL the commit is the database's.
    if (!onPostgres) expect(Number(sync.count)).toBeGreaterThanOrEqual(4);
    expect(sync.buckets!["+Inf"]).toBe(sync.count);
    expect(one("svc_lite_open_sessions").metrics.map((m) => [m.labels?.kind, m.value])).toEqual([
      ["append", "0"],
      ["read", "0"],
      ["sse", "0"],
    ]);
  });

  it("/metrics needs a token with account-metrics", async () => {
    const anon = await fetch(`${lite.url}/metrics`);
    expect(anon.status).toBe(401);
    const mint = async (ops: string[]): Promise<string> => {
      const r = await c.call("POST", "/v1/access-tokens", {
        json: { id: `m-${ops.join("-")}-${Date.now()}`, scope: { ops } },
      });
      expect(r.status).toBe(201);
      return r.json().access_token;
    };
    const without = liteClient({ url: lite.url, token: await mint(["list-basins"]) });
    const denied = await without.call("GET", "/metrics");
    expect([denied.status, denied.json().code]).toEqual([403, "permission_denied"]);
    const withOp = liteClient({ url: lite.url, token: await mint(["account-metrics"]) });
    expect((await withOp.call("GET", "/metrics")).status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    expect(
      (await withOp.call("GET", "/v1/metrics", { query: { set: "account-ops", start: now - 60, end: now } })).status,
    ).toBe(200);
    expect(
      (await withOp.call("GET", `/v1/metrics/${basin}`, { query: { set: "storage", start: now - 60, end: now } }))
        .status,
    ).toBe(403);
    await Promise.all([without.close(), withOp.close()]);
  });

  it("malformed queries are 400 bad_query; unknown names 404; other methods 405", async () => {
    const now = Math.floor(Date.now() / 1000);
    const code = async (path: string, query: Record<string, string | number>): Promise<[number, string]> => {
      const r = await c.call("GET", path, { query: { start: now - 60, end: now, ...query } });
      return [r.status, r.json().code];
    };
    expect(await code("/v1/metrics", {})).toEqual([400, "bad_query"]);
    expect(await code("/v1/metrics", { set: "storage" })).toEqual([400, "bad_query"]);
    expect(await code(`/v1/metrics/${basin}`, { set: "active-basins" })).toEqual([400, "bad_query"]);
    expect(await code(`/v1/metrics/${basin}`, { set: "append-ops", interval: "week" })).toEqual([400, "bad_query"]);
    expect(await code(`/v1/metrics/${basin}`, { set: "storage", start: -1 })).toEqual([400, "bad_query"]);
    expect(await code(`/v1/metrics/${basin}`, { set: "storage", start: 2 ** 32 })).toEqual([400, "bad_query"]);
    expect(await code(`/v1/metrics/${uniqueBasin()}`, { set: "storage" })).toEqual([404, "basin_not_found"]);
    expect(await code(`/v1/metrics/${basin}/nope`, { set: "storage" })).toEqual([404, "stream_not_found"]);
    expect(await code("/v1/metrics/NOT_A_BASIN", { set: "storage" })).toEqual([400, "bad_path"]);
    expect((await c.call("POST", "/v1/metrics", { json: {} })).status).toBe(405);
  });

  it("accumulations cover the range at the interval, zeros included", async () => {
    const now = Math.floor(Date.now() / 1000);
    const [m] = await metrics(`/v1/metrics/${basin}`, "append-ops", { start: now - 600, end: now, interval: "minute" });
    const values = m!.accumulation!.values as [number, number][];
    expect(values.length).toBeGreaterThanOrEqual(10);
    expect(values.length).toBeLessThanOrEqual(11);
    for (let i = 1; i < values.length; i++) expect(values[i]![0] - values[i - 1]![0]).toBe(60);
    expect(values.reduce((n, [, v]) => n + v, 0)).toBe(4);
  });
});

describe("the query is checked as the service checks it", () => {
  const DAY = 86_400;
  /** status, code and message of a query at `path` (the basin's, its stream's, or the account's). */
  const ask = async (path: string, query: Record<string, string | number>): Promise<[number, string, string]> => {
    const r = await c.call("GET", path, { query });
    const body = r.json();
    return [r.status, body.code, body.message];
  };
  const now = (): number => Math.floor(Date.now() / 1000);

  it("start and end are required", async () => {
    for (const [path, set] of [
      ["/v1/metrics", "account-ops"],
      [`/v1/metrics/${basin}`, "append-ops"],
      [`/v1/metrics/${basin}/s`, "storage"],
    ] as const) {
      const [status, code, message] = await ask(path, { set, end: now() });
      expect([status, code]).toEqual([422, "invalid"]);
      expect(message).toMatch(/^start is required/);
      expect((await ask(path, { set, start: now() - 60 })).slice(0, 2)).toEqual([422, "invalid"]);
      expect((await ask(path, { set, start: now() - 60 }))[2]).toMatch(/^end is required/);
      expect((await ask(path, { set }))[2]).toMatch(/is required: both start and end/);
    }
  });

  it("start must not be after end", async () => {
    const t = now();
    expect(await ask(`/v1/metrics/${basin}`, { set: "append-ops", start: t - 10, end: t - 20 })).toEqual([
      422,
      "invalid",
      "start must not be after end",
    ]);
    expect((await ask(`/v1/metrics/${basin}`, { set: "append-ops", start: t - 10, end: t - 10 }))[0]).toBe(200);
  });

  it("the period is at most 30 days", async () => {
    const t = now();
    const [status, code, message] = await ask("/v1/metrics", { set: "account-ops", start: t - 30 * DAY - 1, end: t });
    expect([status, code]).toEqual([422, "invalid"]);
    expect(message).toMatch(/period from start to end must be at most 30 days/);
    expect((await ask("/v1/metrics", { set: "account-ops", start: t - 30 * DAY, end: t }))[0]).toBe(200);
    expect((await ask(`/v1/metrics/${basin}/s`, { set: "storage", start: t - 30 * DAY, end: t }))[0]).toBe(200);
  });

  it("end is not in the future beyond a small leeway", async () => {
    const t = now();
    const [status, code, message] = await ask(`/v1/metrics/${basin}`, {
      set: "read-ops",
      start: t - 60,
      end: t + 3600,
    });
    expect([status, code]).toEqual([422, "invalid"]);
    expect(message).toMatch(/^end must not be in the future/);
    expect((await ask(`/v1/metrics/${basin}`, { set: "read-ops", start: t - 60, end: t + 60 }))[0]).toBe(200);
  });

  it("the basin storage set is by hour only, the stream storage set by minute only", async () => {
    const t = now();
    for (const interval of ["minute", "day"]) {
      const [status, code, message] = await ask(`/v1/metrics/${basin}`, {
        set: "storage",
        start: t - 3600,
        end: t,
        interval,
      });
      expect([status, code]).toEqual([422, "invalid"]);
      expect(message).toMatch(/^the basin storage set is by hour only/);
    }
    for (const interval of ["hour", "day"]) {
      const [status, code, message] = await ask(`/v1/metrics/${basin}/s`, {
        set: "storage",
        start: t - 3600,
        end: t,
        interval,
      });
      expect([status, code]).toEqual([422, "invalid"]);
      expect(message).toMatch(/^the stream storage set is by minute only/);
    }
    // Without an interval each takes its own; other basin sets take any.
    const basinGauge = await c.call("GET", `/v1/metrics/${basin}`, {
      query: { set: "storage", start: t - 7200, end: t },
    });
    for (const [ts] of basinGauge.json().values[0].gauge.values as [number, number][]) expect(ts % 3600).toBe(0);
    const streamGauge = await c.call("GET", `/v1/metrics/${basin}/s`, {
      query: { set: "storage", start: t - 7200, end: t },
    });
    expect(streamGauge.status).toBe(200);
    expect(
      (await ask(`/v1/metrics/${basin}`, { set: "append-ops", start: t - 3600, end: t, interval: "day" }))[0],
    ).toBe(200);
  });
});

describe("locations and defaults", () => {
  it("lists one location, the default; setting it to another is 422", async () => {
    expect((await c.call("GET", "/v1/locations")).json()).toEqual([{ name: "local", is_private: false }]);
    expect((await c.call("GET", "/v1/locations/default")).json()).toEqual({ name: "local", is_private: false });
    const same = await c.call("PUT", "/v1/locations/default", { json: "local" });
    expect([same.status, same.json()]).toEqual([200, { name: "local", is_private: false }]);
    const other = await c.call("PUT", "/v1/locations/default", { json: "mars" });
    expect([other.status, other.json().code]).toEqual([422, "invalid"]);
    const notString = await c.call("PUT", "/v1/locations/default", { json: { name: "local" } });
    expect([notString.status, notString.json().code]).toEqual([400, "bad_json"]);
    const badBasin = await c.call("POST", "/v1/basins", { json: { basin: uniqueBasin(), location: "aws:eu-north-1" } });
    expect([badBasin.status, badBasin.json().code]).toEqual([422, "invalid"]);
    const info = (await c.call("GET", "/v1/basins", { query: { prefix: basin } })).json().basins[0];
    expect(info).toMatchObject({ name: basin, location: "local", scope: "cloud:us-east-1" });
  });

  it("configs show the defaults in effect", async () => {
    const b = (await c.call("GET", `/v1/basins/${basin}`)).json();
    expect(b.default_stream_config).toEqual({
      storage_class: "express",
      retention_policy: { age: 604800 },
      timestamping: { mode: "client-prefer", uncapped: false },
      delete_on_empty: { min_age_secs: 0 },
    });
    expect((await c.call("GET", "/v1/streams/s", { basin })).json().storage_class).toBe("express");
  });
});

describe("across a restart", () => {
  it("keeps every metric set", async () => {
    await c.close();
    expect(await lite.stop()).toBe(0);
    await lite.restart();
    c = liteClient(lite);
    batches.push([{ body: "" }, { body: "" }]);
    try {
      expect(sums(await metrics(`/v1/metrics/${basin}`, "append-ops"))).toEqual({ "append-ops": 4 });
      expect(sums(await metrics(`/v1/metrics/${basin}`, "append-throughput"))).toEqual({
        "append-throughput": APPENDED_BYTES + 16,
      });
    } finally {
      batches.pop();
    }
    expect(sums(await metrics(`/v1/metrics/${basin}`, "read-ops"))).toEqual({ "read-ops": 1 });
    expect(sums(await metrics(`/v1/metrics/${basin}`, "read-throughput"))).toEqual({
      "read-throughput": APPENDED_BYTES,
    });
    expect(lastGauge(await metrics(`/v1/metrics/${basin}`, "storage"))).toBe(APPENDED_BYTES + 16);
    expect(lastGauge(await metrics(`/v1/metrics/${basin}/s`, "storage"))).toBe(APPENDED_BYTES);
    const active = await metrics("/v1/metrics", "active-basins");
    expect(active[0]!.label!.values).toContain(basin);
    // Prometheus: the totals and stored bytes are kept; the node's own request counts start again.
    const prom = (await c.call("GET", "/metrics")).text();
    expect(prom).toContain(`\nsvc_lite_appended_records_total ${APPENDED_RECORDS + 2}\n`);
    expect(prom).toContain(`\nsvc_lite_read_bytes_total ${APPENDED_BYTES}\n`);
    expect(prom).toContain(`\nsvc_lite_storage_bytes ${APPENDED_BYTES + 16}\n`);
    expect(prom).not.toMatch(/svc_lite_requests_total\{operation="append"/);
  });

  it("storage falls when records are trimmed and removed", async () => {
    const trim = await c.call("POST", "/v1/streams/t/records", {
      basin,
      headers: { "svc-format": "base64" },
      json: {
        records: [
          {
            headers: [[Buffer.from("").toString("base64"), Buffer.from("trim").toString("base64")]],
            body: "AAAAAAAAAAI=",
          },
        ],
      },
    });
    expect(trim.status).toBe(200);
    // t held 16 bytes in one batch (seq 0-1) and the trim record (8 + 2 + 4 + 8 = 22): trimming
    // below 2 removes the first batch once the janitor sweeps.
    await eventually(async () => lastGauge(await metrics(`/v1/metrics/${basin}/t`, "storage")) === 22);
  });
});
