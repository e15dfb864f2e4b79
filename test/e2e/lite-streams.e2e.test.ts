/**
 * svc lite, basin-level stream endpoints B1–B6 and auto-creation: protocol.md §2.3, §10 and
 * the conformance checklist §12 items 13–19, over HTTP/1.1 and h2c.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite({ env: { SVC_LITE_SWEEP_MS: "200", SVC_LITE_DELETE_GRACE_MS: "1500" } });
});
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

const enc = encodeURIComponent;

describe.each(["h1", "h2"] as const)("streams over %s", (protocol) => {
  let c: LiteClient;
  beforeAll(() => {
    c = liteClient(lite, protocol);
  });
  afterAll(() => c.close());

  async function basin(config: Record<string, unknown> = {}): Promise<string> {
    const name = uniqueBasin();
    const r = await c.call("POST", "/v1/basins", { json: { basin: name, config } });
    expect(r.status).toBe(201);
    return name;
  }
  const createStream = (b: string, stream: unknown, config?: unknown, headers: Record<string, string> = {}) =>
    c.call("POST", "/v1/streams", { basin: b, json: config === undefined ? { stream } : { stream, config }, headers });

  it("13: name rules; unicode and slashes (as %2F) work", async () => {
    const b = await basin();
    for (const ok of ["a", "x".repeat(512), "événements/ünïcode-🎉", "a/b"]) {
      const r = await createStream(b, ok);
      expect(r.status, ok.slice(0, 20)).toBe(201);
      expect(r.json().name).toBe(ok);
      expect(r.headers["svc-provision-result"]).toBe("created");
    }
    for (const bad of ["x".repeat(513), "", ".", ".."]) {
      const r = await createStream(b, bad);
      expect([r.status, r.json().code]).toEqual([400, "bad_json"]);
    }
    expect((await c.call("GET", `/v1/streams/${enc("a/b")}`, { basin: b })).status).toBe(200);
    const ack = await c.call("POST", `/v1/streams/${enc("a/b")}/records`, {
      basin: b,
      json: { records: [{ body: "slash" }] },
    });
    expect(ack.status).toBe(200);
    const read = await c.call("GET", `/v1/streams/${enc("a/b")}/records`, { basin: b, query: { seq_num: 0 } });
    expect(read.json().records[0].body).toBe("slash");
    const badPath = await c.call("GET", `/v1/streams/${"x".repeat(513)}`, { basin: b });
    expect([badPath.status, badPath.json().code]).toEqual([400, "bad_path"]);
  });

  it("14: a new stream inherits the basin defaults; later basin changes do not touch it", async () => {
    const b = await basin({ default_stream_config: { storage_class: "standard", timestamping: { mode: "arrival" } } });
    await createStream(b, "s", { retention_policy: { infinite: {} } });
    const cfg = (await c.call("GET", "/v1/streams/s", { basin: b })).json();
    expect(cfg.storage_class).toBe("standard");
    expect(cfg.retention_policy).toEqual({ infinite: {} });
    expect(cfg.timestamping).toEqual({ mode: "arrival", uncapped: false });
    await c.call("PATCH", `/v1/basins/${b}`, { json: { default_stream_config: { storage_class: "express" } } });
    expect((await c.call("GET", "/v1/streams/s", { basin: b })).json().storage_class).toBe("standard");
  });

  it("15: a default stream's config is fully resolved", async () => {
    const b = await basin();
    await createStream(b, "s");
    const r = await c.call("GET", "/v1/streams/s", { basin: b });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      storage_class: "express",
      retention_policy: { age: 604800 },
      timestamping: { mode: "client-prefer", uncapped: false },
      delete_on_empty: { min_age_secs: 0 },
    });
  });

  it("16: PATCH null resets to the basin default; age 0 → 422", async () => {
    const b = await basin({ default_stream_config: { storage_class: "standard" } });
    await createStream(b, "s", { storage_class: "express", timestamping: { mode: "arrival", uncapped: true } });
    const partial = await c.call("PATCH", "/v1/streams/s", {
      basin: b,
      json: { timestamping: { mode: "client-require" } },
    });
    expect(partial.json().timestamping).toEqual({ mode: "client-require", uncapped: true });
    const reset = await c.call("PATCH", "/v1/streams/s", { basin: b, json: { storage_class: null } });
    expect([reset.status, reset.json().storage_class]).toEqual([200, "standard"]);
    const bad = await c.call("PATCH", "/v1/streams/s", { basin: b, json: { retention_policy: { age: 0 } } });
    expect([bad.status, bad.json().code]).toEqual([422, "invalid"]);
    const missing = await c.call("PATCH", "/v1/streams/nope", { basin: b, json: {} });
    expect([missing.status, missing.json().code]).toEqual([404, "stream_not_found"]);
  });

  it("17: DELETE seals the stream: 409 everywhere, still listed, then the name is reusable", async () => {
    const b = await basin();
    await createStream(b, "s");
    await c.call("POST", "/v1/streams/s/records", { basin: b, json: { records: [{ body: "x" }] } });
    expect((await c.call("DELETE", "/v1/streams/s", { basin: b })).status).toBe(202);
    const checks = [
      c.call("GET", "/v1/streams/s", { basin: b }),
      c.call("PATCH", "/v1/streams/s", { basin: b, json: {} }),
      c.call("POST", "/v1/streams/s/records", { basin: b, json: { records: [{ body: "y" }] } }),
      c.call("GET", "/v1/streams/s/records", { basin: b, query: { seq_num: 0 } }),
      c.call("GET", "/v1/streams/s/records/tail", { basin: b }),
      createStream(b, "s"),
      c.call("PUT", "/v1/streams/s", { basin: b }),
    ];
    for (const r of await Promise.all(checks))
      expect([r.status, r.json().code]).toEqual([409, "stream_deletion_pending"]);
    expect((await c.call("DELETE", "/v1/streams/s", { basin: b })).status).toBe(202);
    const listed = (await c.call("GET", "/v1/streams", { basin: b })).json().streams;
    expect(listed).toHaveLength(1);
    expect(listed[0].deleted_at).not.toBeNull();
    await eventually(async () => (await c.call("GET", "/v1/streams/s", { basin: b })).status === 404);
    expect((await createStream(b, "s")).status).toBe(201);
    const tail = await c.call("GET", "/v1/streams/s/records/tail", { basin: b });
    expect(tail.json()).toEqual({ tail: { seq_num: 0, timestamp: 0 } });
  });

  it("18: a missing basin is basin_not_found, a missing stream stream_not_found", async () => {
    const nb = uniqueBasin();
    for (const [method, path, json] of [
      ["POST", "/v1/streams/s/records", { records: [{ body: "x" }] }],
      ["GET", "/v1/streams/s/records?seq_num=0", undefined],
      ["GET", "/v1/streams/s/records/tail", undefined],
      ["GET", "/v1/streams/s", undefined],
      ["GET", "/v1/streams", undefined],
      ["DELETE", "/v1/streams/s", undefined],
    ] as const) {
      const r = await c.call(method, path, { basin: nb, ...(json ? { json } : {}) });
      expect([r.status, r.json().code], `${method} ${path}`).toEqual([404, "basin_not_found"]);
    }
    const b = await basin();
    for (const path of ["/v1/streams/s", "/v1/streams/s/records/tail"]) {
      const r = await c.call("GET", path, { basin: b });
      expect([r.status, r.json().code]).toEqual([404, "stream_not_found"]);
    }
    const append = await c.call("POST", "/v1/streams/s/records", { basin: b, json: { records: [{ body: "x" }] } });
    expect([append.status, append.json().code]).toEqual([404, "stream_not_found"]);
    const noBasin = await c.call("GET", "/v1/streams");
    expect([noBasin.status, noBasin.json().code]).toEqual([400, "bad_header"]);
    const badBasin = await c.call("GET", "/v1/streams", { headers: { "svc-basin": "NO" } });
    expect([badBasin.status, badBasin.json().code]).toEqual([400, "bad_header"]);
  });

  it("19: create_stream_on_append and create_stream_on_read; bad reads create nothing", async () => {
    const b = await basin({
      create_stream_on_append: true,
      create_stream_on_read: true,
      default_stream_config: { storage_class: "standard" },
    });
    const ack = await c.call("POST", "/v1/streams/auto-a/records", { basin: b, json: { records: [{ body: "x" }] } });
    expect(ack.status).toBe(200);
    expect((await c.call("GET", "/v1/streams/auto-a", { basin: b })).json().storage_class).toBe("standard");
    const tail = await c.call("GET", "/v1/streams/auto-t/records/tail", { basin: b });
    expect([tail.status, tail.json()]).toEqual([200, { tail: { seq_num: 0, timestamp: 0 } }]);
    const read = await c.call("GET", "/v1/streams/auto-r/records", { basin: b });
    expect(read.status).toBe(416);
    expect((await c.call("GET", "/v1/streams/auto-r", { basin: b })).status).toBe(200);
    const invalid = await c.call("GET", "/v1/streams/auto-x/records", { basin: b, query: { timestamp: 5, until: 5 } });
    expect([invalid.status, invalid.json().code]).toEqual([422, "invalid"]);
    const badAppend = await c.call("POST", "/v1/streams/auto-y/records", { basin: b, json: { records: [] } });
    expect(badAppend.status).toBe(422);
    for (const s of ["auto-x", "auto-y"])
      expect((await c.call("GET", `/v1/streams/${s}`, { basin: b })).status).toBe(404);
  });

  it("19: concurrent auto-creating appends race safely", async () => {
    const b = await basin({ create_stream_on_append: true });
    const acks = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        c.call("POST", "/v1/streams/race/records", { basin: b, json: { records: [{ body: `r${i}` }] } }),
      ),
    );
    expect(acks.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect((await c.call("GET", "/v1/streams/race/records/tail", { basin: b })).json().tail.seq_num).toBe(10);
    expect((await c.call("GET", "/v1/streams", { basin: b })).json().streams).toHaveLength(1);
  });

  it("B1: list pagination, prefix, and B2/B4 idempotency", async () => {
    const b = await basin();
    for (const s of ["s-3", "s-1", "t-1", "s-2"]) expect((await createStream(b, s)).status).toBe(201);
    const p1 = (await c.call("GET", "/v1/streams", { basin: b, query: { prefix: "s-", limit: 2 } })).json();
    expect([p1.streams.map((s: { name: string }) => s.name), p1.has_more]).toEqual([["s-1", "s-2"], true]);
    const p2 = (
      await c.call("GET", "/v1/streams", { basin: b, query: { prefix: "s-", limit: 2, start_after: "s-2" } })
    ).json();
    expect([p2.streams.map((s: { name: string }) => s.name), p2.has_more]).toEqual([["s-3"], false]);
    const tooLong = await c.call("GET", "/v1/streams", { basin: b, query: { prefix: "x".repeat(513) } });
    expect([tooLong.status, tooLong.json().code]).toEqual([400, "bad_query"]);
    const tok = { "svc-request-token": "req-1" };
    expect((await createStream(b, "idem", { storage_class: "standard" }, tok)).status).toBe(201);
    const replay = await createStream(b, "idem", { storage_class: "standard" }, tok);
    expect([replay.status, replay.headers["svc-provision-result"]]).toEqual([201, "noop"]);
    expect((await createStream(b, "idem", { storage_class: "express" }, tok)).status).toBe(409);
    const put = await c.call("PUT", "/v1/streams/put-s", { basin: b, json: { storage_class: "standard" } });
    expect([put.status, put.headers["svc-provision-result"]]).toEqual([201, "created"]);
    const again = await c.call("PUT", "/v1/streams/put-s", { basin: b, json: { storage_class: "standard" } });
    expect([again.status, again.headers["svc-provision-result"]]).toEqual([200, "noop"]);
    const upd = await c.call("PUT", "/v1/streams/put-s", { basin: b, json: { timestamping: { uncapped: true } } });
    expect([upd.status, upd.headers["svc-provision-result"]]).toEqual([200, "updated"]);
    const cfg = (await c.call("GET", "/v1/streams/put-s", { basin: b })).json();
    expect([cfg.storage_class, cfg.timestamping.uncapped]).toEqual(["standard", true]);
  });
});

describe("host-prefix routing", () => {
  it("takes the basin from a {basin}. Host prefix when svc-basin is absent", async () => {
    const c = liteClient(lite);
    const b = uniqueBasin();
    await c.call("POST", "/v1/basins", { json: { basin: b } });
    const r = await c.call("POST", "/v1/streams", {
      headers: { host: `${b}.localhost:${lite.port}` },
      json: { stream: "via-host" },
    });
    expect(r.status).toBe(201);
    expect((await c.call("GET", "/v1/streams/via-host", { basin: b })).status).toBe(200);
  });
});
