/**
 * svc lite, unary read (B8) and check-tail (B9): protocol.md §7 and the conformance checklist
 * §12 items 33–40, plus retention and delete-on-empty, in JSON raw, JSON base64 and
 * protobuf, over HTTP/1.1 and h2c.
 *
 * Retention and delete-on-empty judge ages by lite's clock: their tests run on a second lite,
 * in this process, on a clock they move instead of waiting; on PostgreSQL (whose clock is the
 * database's) on the suite's lite, and there the time passes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeReadBatch } from "../../src/wire/proto.js";
import { eventually, type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";

const LITE_ENV = { SVC_LITE_SWEEP_MS: "200", SVC_LITE_DELETE_GRACE_MS: "200" };
const onPostgres = process.env.LITE_E2E_STORAGE === "postgres";
let lite: Lite;
/** The lite of the tests of ages: in this process, its clock `ahead` ms ahead of this machine's (the suite's lite on PostgreSQL). */
let aged: Lite;
let ahead = 0;
beforeAll(async () => {
  lite = await startLite({ env: LITE_ENV });
  aged = onPostgres ? lite : await startLite({ inProcess: true, clock: () => Date.now() + ahead, env: LITE_ENV });
});
afterAll(async () => {
  if (aged !== lite) await aged?.stop();
  expect(await lite.stop()).toBe(0);
});

/** `ms` passes on the clock of `aged`: moved at once, or waited for on PostgreSQL. */
async function pass(ms: number): Promise<void> {
  if (onPostgres) await new Promise((r) => setTimeout(r, ms));
  else ahead += ms;
}

type Format = "raw" | "base64" | "protobuf";
const FORMATS: Format[] = ["raw", "base64", "protobuf"];

interface Out {
  status: number;
  records: { seq_num: number; timestamp: number; body: string }[];
  tail?: { seq_num: number; timestamp: number };
  raw: any;
}

const bodies = (k: number, from = 0) => Array.from({ length: k }, (_, i) => ({ body: `r${from + i}` }));

/** The tests' steps through `c`, in `basin`. */
function on(c: LiteClient, basin: string) {
  let n = 0;
  const fresh = async (config?: Record<string, unknown>): Promise<string> => {
    const s = `s${++n}`;
    expect(
      (await c.call("POST", "/v1/streams", { basin, json: config ? { stream: s, config } : { stream: s } })).status,
    ).toBe(201);
    return s;
  };
  const append = async (s: string, records: Record<string, unknown>[]) => {
    const r = await c.call("POST", `/v1/streams/${s}/records`, { basin, json: { records } });
    expect(r.status).toBe(200);
    return r.json();
  };
  /** Reads in one of the three response formats and normalises to raw-text bodies. */
  async function read(
    s: string,
    query: Record<string, string | number | boolean>,
    format: Format = "raw",
  ): Promise<Out> {
    const headers: Record<string, string> =
      format === "protobuf" ? { accept: "application/protobuf" } : { "svc-format": format };
    const r = await c.call("GET", `/v1/streams/${s}/records`, { basin, query, headers });
    if (r.status !== 200) return { status: r.status, records: [], raw: r.json() };
    if (format === "protobuf") {
      expect(r.headers["content-type"]).toBe("application/protobuf");
      const b = decodeReadBatch(r.body);
      return {
        status: 200,
        raw: b,
        records: b.records.map((x) => ({
          seq_num: x.seqNum,
          timestamp: x.timestamp,
          body: Buffer.from(x.body).toString(),
        })),
        ...(b.tail ? { tail: { seq_num: b.tail.seqNum, timestamp: b.tail.timestamp } } : {}),
      };
    }
    const j = r.json();
    const dec = (v: string | undefined) =>
      v === undefined ? "" : format === "base64" ? Buffer.from(v, "base64").toString() : v;
    return {
      status: 200,
      raw: j,
      records: j.records.map((x: any) => ({ ...x, body: dec(x.body) })),
      ...(j.tail ? { tail: j.tail } : {}),
    };
  }
  return { basin, fresh, append, read };
}

type Steps = ReturnType<typeof on>;

/** A new basin through `c`, and the steps in it. */
async function inNewBasin(c: LiteClient): Promise<Steps> {
  const basin = uniqueBasin();
  expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
  return on(c, basin);
}

describe.each(["h1", "h2"] as const)("read over %s", (protocol) => {
  let c: LiteClient;
  let basin: string;
  let fresh: Steps["fresh"];
  let append: Steps["append"];
  let read: Steps["read"];
  beforeAll(async () => {
    c = liteClient(lite, protocol);
    ({ basin, fresh, append, read } = await inNewBasin(c));
  });
  afterAll(() => c.close());

  it.each(FORMATS)("33: empty stream (%s)", async (format) => {
    const s = await fresh();
    for (const q of [{ seq_num: 0 }, {}, { timestamp: 1 }, { tail_offset: 0 }] as Record<string, number>[]) {
      const r = await read(s, q, format);
      expect([r.status, r.raw], JSON.stringify(q)).toEqual([416, { tail: { seq_num: 0, timestamp: 0 } }]);
    }
    const ts0 = await read(s, { timestamp: 0 }, format);
    expect([ts0.status, ts0.records, ts0.tail]).toEqual([200, [], undefined]);
  });

  it.each(FORMATS)("34–35: starts, 416 and clamp (%s)", async (format) => {
    const s = await fresh();
    const ack = await append(s, bodies(5));
    const all = await read(s, { seq_num: 0 }, format);
    expect(all.records.map((r) => r.body)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    expect(all.records.map((r) => r.seq_num)).toEqual([0, 1, 2, 3, 4]);
    expect(all.tail).toBeUndefined();
    if (format !== "protobuf") expect("tail" in all.raw).toBe(false);
    for (const q of [{ seq_num: 5 }, { seq_num: 6 }, { seq_num: 6, clamp: true }] as Record<
      string,
      number | boolean
    >[]) {
      const r = await read(s, q, format);
      expect([r.status, r.raw]).toEqual([416, { tail: ack.tail }]);
    }
    expect((await read(s, { tail_offset: 2 }, format)).records.map((r) => r.seq_num)).toEqual([3, 4]);
    expect((await read(s, { tail_offset: 100 }, format)).records).toHaveLength(5);
    const two = await c.call("GET", `/v1/streams/${s}/records`, { basin, query: { seq_num: 0, timestamp: 0 } });
    expect([two.status, two.json().code]).toEqual([422, "invalid"]);
    const neg = await c.call("GET", `/v1/streams/${s}/records`, { basin, query: { seq_num: -1 } });
    expect([neg.status, neg.json().code]).toEqual([400, "bad_query"]);
    const badClamp = await c.call("GET", `/v1/streams/${s}/records`, { basin, query: { seq_num: 0, clamp: "yes" } });
    expect([badClamp.status, badClamp.json().code]).toEqual([400, "bad_query"]);
  });

  it("34: clamp with wait long-polls, then answers empty", async () => {
    const s = await fresh();
    await append(s, bodies(5));
    const t0 = Date.now();
    const r = await read(s, { seq_num: 6, clamp: true, wait: 1 });
    expect([r.status, r.records, r.tail]).toEqual([200, [], undefined]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it.each(FORMATS)("36: count and bytes limits (%s)", async (format) => {
    const s = await fresh();
    await append(s, bodies(5));
    expect((await read(s, { seq_num: 0, count: 2 }, format)).records).toHaveLength(2);
    const zero = await read(s, { seq_num: 0, count: 0 }, format);
    expect([zero.status, zero.records]).toEqual([200, []]);
    const metered = 8 + 2; // body "rN"
    expect((await read(s, { seq_num: 0, bytes: metered - 1 }, format)).records).toEqual([]);
    expect((await read(s, { seq_num: 0, bytes: 2 * metered }, format)).records.map((r) => r.seq_num)).toEqual([0, 1]);
    expect((await read(s, { seq_num: 0, bytes: 2 * metered + 1, count: 1 }, format)).records).toHaveLength(1);
  });

  it("36: unary reads are capped at 1000 records and 1 MiB", async () => {
    const s = await fresh();
    await append(s, bodies(1000));
    await append(s, bodies(200, 1000));
    const r = await read(s, { seq_num: 0, count: 5000 }, "protobuf");
    expect(r.records).toHaveLength(1000);
    const big = await fresh();
    const body = "x".repeat(300 * 1024);
    for (let i = 0; i < 4; i++) await append(big, [{ body }]);
    const capped = await read(big, { seq_num: 0 }, "protobuf");
    expect(capped.records).toHaveLength(3);
  });

  it.each(FORMATS)("37: until and timestamp starts (%s)", async (format) => {
    const s = await fresh({ timestamping: { mode: "client-require" } });
    await append(
      s,
      [1000, 2000, 2000, 3000, 4000].map((timestamp, i) => ({ body: `t${i}`, timestamp })),
    );
    expect((await read(s, { seq_num: 0, until: 2000 }, format)).records.map((r) => r.timestamp)).toEqual([1000]);
    expect((await read(s, { seq_num: 0, until: 3000 }, format)).records.map((r) => r.seq_num)).toEqual([0, 1, 2]);
    expect((await read(s, { seq_num: 0, until: 500 }, format)).records).toEqual([]);
    expect((await read(s, { timestamp: 2000 }, format)).records.map((r) => r.seq_num)).toEqual([1, 2, 3, 4]);
    expect((await read(s, { timestamp: 2001, until: 4000 }, format)).records.map((r) => r.seq_num)).toEqual([3]);
    expect((await read(s, { timestamp: 4000 }, format)).records.map((r) => r.seq_num)).toEqual([4]);
    expect((await read(s, { timestamp: 4001 }, format)).status).toBe(416);
    const bad = await c.call("GET", `/v1/streams/${s}/records`, { basin, query: { timestamp: 3000, until: 3000 } });
    expect([bad.status, bad.json().code]).toEqual([422, "invalid"]);
  });

  it.each(FORMATS)("38: long poll returns the first live batch with its tail (%s)", async (format) => {
    const s = await fresh();
    await append(s, bodies(2));
    const pending = read(s, { seq_num: 2, wait: 5 }, format);
    await new Promise((r) => setTimeout(r, 300));
    const ack = await append(s, [{ body: "live-1" }, { body: "live-2" }]);
    const r = await pending;
    expect(r.records.map((x) => x.body)).toEqual(["live-1", "live-2"]);
    expect(r.tail).toEqual(ack.end);
  });

  it("38: long poll with no append answers empty after the wait; a bounded wait caps", async () => {
    const s = await fresh();
    await append(s, bodies(1));
    const t0 = Date.now();
    const r = await read(s, { seq_num: 1, wait: 1 });
    expect([r.status, r.records, r.tail]).toEqual([200, [], undefined]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    const pending = read(s, { seq_num: 1, wait: 999 });
    await new Promise((res) => setTimeout(res, 200));
    await append(s, [{ body: "late" }]);
    expect((await pending).records.map((x) => x.body)).toEqual(["late"]);
    const past = await read(s, { seq_num: 0, wait: 5 });
    expect(past.records.map((x) => x.body)).toEqual(["r0", "late"]);
    expect(past.tail).toBeUndefined();
  });

  it("39: 416 and errors stay JSON for protobuf requests", async () => {
    const s = await fresh();
    const r = await c.call("GET", `/v1/streams/${s}/records`, { basin, headers: { accept: "application/protobuf" } });
    expect(r.status).toBe(416);
    expect(r.headers["content-type"]).toMatch(/application\/json/);
    expect(r.json()).toEqual({ tail: { seq_num: 0, timestamp: 0 } });
  });

  it("40: reads skip trimmed records; everything trimmed reads empty", async () => {
    const s = await fresh();
    await append(s, bodies(5));
    const trimTo = (p: number) =>
      c.call("POST", `/v1/streams/${s}/records`, {
        basin,
        headers: { "svc-format": "base64" },
        json: {
          records: [{ headers: [["", "dHJpbQ=="]], body: Buffer.from([0, 0, 0, 0, 0, 0, 0, p]).toString("base64") }],
        },
      });
    expect((await trimTo(3)).status).toBe(200);
    await eventually(async () => (await read(s, { seq_num: 0 })).records[0]?.seq_num === 3);
    expect((await read(s, { seq_num: 1, count: 2 })).records.map((r) => r.seq_num)).toEqual([3, 4]);
    expect((await trimTo(200)).status).toBe(200); // clamps to its own seq + 1
    await eventually(async () => (await read(s, { seq_num: 0 })).records.length === 0);
    const empty = await read(s, { seq_num: 0 });
    expect([empty.status, empty.records]).toEqual([200, []]);
    expect((await c.call("GET", `/v1/streams/${s}/records/tail`, { basin })).json().tail.seq_num).toBe(7);
    const after = await append(s, [{ body: "next" }]);
    expect(after.start.seq_num).toBe(7);
    expect((await read(s, { seq_num: 0 })).records.map((r) => r.body)).toEqual(["next"]);
  });

  describe("ages, on the clock of `aged`", () => {
    let ac: LiteClient;
    let at: Steps;
    beforeAll(async () => {
      ac = liteClient(aged, protocol);
      at = await inNewBasin(ac);
    });
    afterAll(() => ac.close());

    it("retention: expired records are never returned, the tail stays", async () => {
      const s = await at.fresh({ retention_policy: { age: 1 } });
      await at.append(s, bodies(3));
      expect((await at.read(s, { seq_num: 0 })).records).toHaveLength(3);
      await pass(1_100);
      const fresh2 = await at.append(s, [{ body: "new" }]);
      const r = await at.read(s, { seq_num: 0 });
      expect(r.records.map((x) => [x.seq_num, x.body])).toEqual([[3, "new"]]);
      expect(fresh2.tail.seq_num).toBe(4);
      await pass(1_100);
      const expired = await at.read(s, { seq_num: 0 });
      expect([expired.status, expired.records]).toEqual([200, []]);
      const tail = await ac.call("GET", `/v1/streams/${s}/records/tail`, { basin: at.basin });
      expect(tail.json().tail.seq_num).toBe(4);
    });

    it("delete-on-empty removes a stream once its records expired and it stayed empty", async () => {
      const s = await at.fresh({ retention_policy: { age: 1 }, delete_on_empty: { min_age_secs: 1 } });
      const keep = await at.fresh({ delete_on_empty: { min_age_secs: 1 } });
      await at.append(s, bodies(3));
      await at.append(keep, bodies(1));
      await pass(1_100); // the records expire; both streams are past their minimum age
      const status = async (stream: string) =>
        (await ac.call("GET", `/v1/streams/${stream}`, { basin: at.basin })).status;
      await eventually(async () => (await status(s)) === 404, 15_000);
      expect(await status(keep)).toBe(200);
    });
  });

  it("B9: check-tail equals the last ack's end", async () => {
    const s = await fresh();
    const ack = await append(s, bodies(3));
    expect((await c.call("GET", `/v1/streams/${s}/records/tail`, { basin })).json()).toEqual({ tail: ack.end });
  });
});
