/**
 * Metrics of two svc lite nodes on one PostgreSQL: each node counts what it served, the
 * database sums. The same traffic goes through both nodes (appends, reads, a trim, a deleted
 * stream) and, in the same order, through one lmdb node; every metric set and the Prometheus
 * totals must then be the same from either PostgreSQL node, and the same as lmdb's.
 *
 * A node adds what it counted when it is asked for metrics (and every flush interval); one
 * node here keeps what it counted for long (a long flush interval, no periodic sweep), so its
 * counts for a stream the other node deleted arrive after that stream's stored bytes were
 * dropped: they must not bring the stream's bytes back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";

type Metric = Record<string, { name: string; values: unknown[] }>;

let db: Awaited<ReturnType<typeof freshDatabase>>;
let a: Lite;
let b: Lite;
let l: Lite;
let ca: LiteClient;
let cb: LiteClient;
let cl: LiteClient;
const basin = uniqueBasin("mn");
const TRIM = { records: [{ headers: [["", Buffer.from("trim").toString("base64")]], body: "AAAAAAAAAAI=" }] };

/** The traffic, through `first` and `second` (the two nodes, or the lmdb node twice). */
async function traffic(first: LiteClient, second: LiteClient): Promise<void> {
  const ok = async (
    c: LiteClient,
    method: string,
    path: string,
    opts: Parameters<LiteClient["call"]>[2] = {},
  ): Promise<void> => {
    const r = await c.call(method, path, opts);
    expect(r.status, `${method} ${path}: ${r.text()}`).toBeLessThan(300);
  };
  await ok(first, "POST", "/v1/basins", { json: { basin } });
  for (const s of ["s", "t", "x"]) await ok(second, "POST", "/v1/streams", { basin, json: { stream: s } });
  for (let i = 0; i < 6; i++)
    await ok(i % 2 === 0 ? first : second, "POST", "/v1/streams/s/records", {
      basin,
      json: { records: [{ body: `record ${i}` }, { body: "" }] },
    });
  await ok(second, "GET", "/v1/streams/s/records", { basin, query: { seq_num: 0 } });
  await ok(first, "GET", "/v1/streams/s/records", { basin, query: { seq_num: 4, count: 3 } });
  await ok(second, "GET", "/v1/streams/s/records/tail", { basin });
  await ok(first, "POST", "/v1/streams/t/records", { basin, json: { records: [{ body: "" }, { body: "" }] } });
  await ok(first, "POST", "/v1/streams/t/records", { basin, headers: { "svc-format": "base64" }, json: TRIM });
  // x: appended through the node that keeps its counts, deleted through the other.
  await ok(first, "POST", "/v1/streams/x/records", { basin, json: { records: [{ body: "gone soon" }] } });
  await ok(second, "DELETE", "/v1/streams/x", { basin });
  await eventually(async () => (await second.call("GET", "/v1/streams/x", { basin })).status === 404);
}

const SETS: [string, string, Record<string, string>][] = [
  ["/v1/metrics", "account-ops", {}],
  ["/v1/metrics", "active-basins", {}],
  ...["storage", "append-ops", "read-ops", "read-throughput", "append-throughput", "basin-ops"].map(
    (set): [string, string, Record<string, string>] => [`/v1/metrics/${basin}`, set, {}],
  ),
  [`/v1/metrics/${basin}/s`, "storage", {}],
  [`/v1/metrics/${basin}/t`, "storage", {}],
];

/**
 * Every set, over the last two hours by hour (streams by minute), as one comparable value.
 * The metrics requests themselves are left out of account-ops: each node counts its own as
 * they are answered, so they differ by when each node was asked. So are the get-stream-config
 * requests that wait for x to be gone: how many it takes depends on the machine's load.
 */
async function everySet(c: LiteClient, end: number): Promise<Record<string, Metric[]>> {
  const out: Record<string, Metric[]> = {};
  for (const [path, set] of SETS) {
    const interval = path.split("/").length > 4 ? "minute" : "hour";
    const r = await c.call("GET", path, { query: { set, start: end - 7200, end, interval } });
    expect(r.status, r.text()).toBe(200);
    out[`${path} ${set}`] = (r.json().values as Metric[]).filter(
      (m) => !/-metrics$|^get-stream-config$/.test(m.accumulation?.name ?? ""),
    );
  }
  return out;
}

/** What does not depend on when the traffic ran: sums of accumulations, last gauge values, labels. */
function totals(sets: Record<string, Metric[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(sets)) {
    for (const m of values) {
      const [kind, body] = Object.entries(m)[0]!;
      const points = body.values as [number, number][];
      if (kind === "label") out[`${key} ${body.name}`] = body.values;
      else if (kind === "gauge") out[`${key} ${body.name}`] = points.at(-1)?.[1];
      else out[`${key} ${body.name}`] = points.reduce((n, [, v]) => n + v, 0);
    }
  }
  return out;
}

function prometheusTotals(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => /^svc_lite_(appended|read)_(records|bytes)_total |^svc_lite_storage_bytes /.test(line));
}

/** A minute boundary flushes every node: start the traffic early in a minute. */
async function earlyInAMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((r) => setTimeout(r, left + 100));
}

beforeAll(async () => {
  db = await freshDatabase();
  const quick = { SVC_LITE_DELETE_GRACE_MS: "0", SVC_LITE_SWEEP_MS: "200" };
  [a, b, l] = await Promise.all([
    startLite({
      postgres: db.url,
      env: { SVC_LITE_DELETE_GRACE_MS: "0", SVC_LITE_SWEEP_MS: "600000", SVC_LITE_METRICS_FLUSH_MS: "600000" },
    }),
    startLite({ postgres: db.url, env: quick }),
    startLite({ env: quick }),
  ]);
  [ca, cb, cl] = [liteClient(a), liteClient(b), liteClient(l)];
  await earlyInAMinute();
  await traffic(ca, cb);
  await traffic(cl, cl);
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), l?.stop()]);
  await db?.drop();
});

describe("metrics of two nodes on one database", () => {
  it("every set is the same from either node, and the same as lmdb's for the same traffic", async () => {
    // Node a's sweep after its trim subtracts what it removed (counted on a).
    await eventually(
      async () =>
        (
          await ca.call("GET", `/v1/metrics/${basin}/t`, {
            query: { set: "storage", start: Math.floor(Date.now() / 1000) - 60, end: Math.floor(Date.now() / 1000) },
          })
        )
          .json()
          .values[0].gauge.values.at(-1)?.[1] === 22,
    );
    const end = Math.floor(Date.now() / 1000);
    // A node adds what it holds when asked (else within its flush interval): once both were
    // asked, both answer the same. Node a's counts for x arrive only now, after x was dropped.
    await everySet(cb, end);
    await everySet(ca, end);
    const fromA = await everySet(ca, end);
    const fromB = await everySet(cb, end);
    expect(fromB).toEqual(fromA);
    const lmdb = await eventually(async () => {
      const sets = totals(await everySet(cl, Math.floor(Date.now() / 1000)));
      return sets[`/v1/metrics/${basin}/t storage storage`] === 22 && sets;
    });
    const pg = totals(fromA);
    expect(pg).toEqual(lmdb);
    // The figures themselves: 6 appends of 2 records to s, 3 to t and x; x deleted, t trimmed.
    expect(pg[`/v1/metrics/${basin} append-ops append-ops`]).toBe(9);
    expect(pg[`/v1/metrics/${basin}/t storage storage`]).toBe(22);
    expect(pg[`/v1/metrics/${basin} storage storage`]).toBe(
      (pg[`/v1/metrics/${basin}/s storage storage`] as number) + 22,
    );
    expect(pg["/v1/metrics active-basins active-basins"]).toEqual([basin]);
  });

  it("Prometheus totals and stored bytes are the database's sums, the same on both nodes and as lmdb's", async () => {
    const [pa, pb, pl] = await Promise.all(
      [ca, cb, cl].map(async (c) => prometheusTotals((await c.call("GET", "/metrics")).text())),
    );
    expect(pa).toHaveLength(5);
    expect(pb).toEqual(pa);
    expect(pl).toEqual(pa);
  });
});
