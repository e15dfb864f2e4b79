/**
 * svc lite, account-level basin endpoints A1–A6: protocol.md §2.2 and the conformance
 * checklist §12 items 1–12, over HTTP/1.1 (undici) and h2c (node:http2) against one server.
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

function rand(n: number): string {
  let s = "";
  while (s.length < n) s += Math.random().toString(36).slice(2);
  return s.slice(0, n);
}

describe.each(["h1", "h2"] as const)("basins over %s", (protocol) => {
  let c: LiteClient;
  beforeAll(() => {
    c = liteClient(lite, protocol);
  });
  afterAll(() => c.close());

  const create = (basin: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    c.call("POST", "/v1/basins", { json: { basin, ...extra }, headers });

  it("1: creates an 8-character basin as active, rejects bad names with bad_json", async () => {
    const name = `a${rand(7)}`;
    const r = await create(name);
    expect(r.status).toBe(201);
    expect(r.headers["svc-provision-result"]).toBe("created");
    const info = r.json();
    expect(info).toMatchObject({ name, state: "active", scope: "cloud:us-east-1", deleted_at: null });
    expect(Date.parse(info.created_at)).toBeGreaterThan(0);
    for (const bad of [rand(7), rand(49), "Abcdefgh", "abcd_efg", "-abcdefg", "abcdefg-"]) {
      const e = await create(bad);
      expect(e.status, bad).toBe(400);
      expect(e.json().code).toBe("bad_json");
    }
    const missing = await c.call("POST", "/v1/basins", { json: {} });
    expect([missing.status, missing.json().code]).toEqual([400, "bad_json"]);
    const noType = await c.call("POST", "/v1/basins", { body: JSON.stringify({ basin: uniqueBasin() }) });
    expect([noType.status, noType.json().code]).toEqual([400, "bad_json"]);
  });

  it("2: a second create without a token is resource_already_exists", async () => {
    const name = uniqueBasin();
    expect((await create(name)).status).toBe(201);
    const again = await create(name);
    expect([again.status, again.json().code]).toEqual([409, "resource_already_exists"]);
  });

  it("3: svc-request-token makes create idempotent for the same config only", async () => {
    const name = uniqueBasin();
    const config = { create_stream_on_append: true };
    expect((await create(name, { config }, { "svc-request-token": "tok-1" })).status).toBe(201);
    const replay = await create(name, { config }, { "svc-request-token": "tok-1" });
    expect([200, 201]).toContain(replay.status);
    expect(replay.headers["svc-provision-result"]).toBe("noop");
    expect(replay.json().name).toBe(name);
    const otherConfig = await create(
      name,
      { config: { create_stream_on_append: false } },
      { "svc-request-token": "tok-1" },
    );
    expect([otherConfig.status, otherConfig.json().code]).toEqual([409, "resource_already_exists"]);
    const otherToken = await create(name, { config }, { "svc-request-token": "tok-2" });
    expect([otherToken.status, otherToken.json().code]).toEqual([409, "resource_already_exists"]);
    const noToken = await create(name, { config });
    expect(noToken.status).toBe(409);
  });

  it("4: a 37-byte svc-request-token is bad_header", async () => {
    const r = await create(uniqueBasin(), {}, { "svc-request-token": "x".repeat(37) });
    expect([r.status, r.json().code]).toEqual([400, "bad_header"]);
  });

  it("5: config validation: age 0 → 422, age -1 and unknown enums → 400", async () => {
    const age0 = await create(uniqueBasin(), { config: { default_stream_config: { retention_policy: { age: 0 } } } });
    expect([age0.status, age0.json().code]).toEqual([422, "invalid"]);
    const neg = await create(uniqueBasin(), { config: { default_stream_config: { retention_policy: { age: -1 } } } });
    expect([neg.status, neg.json().code]).toEqual([400, "bad_json"]);
    const sc = await create(uniqueBasin(), { config: { default_stream_config: { storage_class: "premium" } } });
    expect([sc.status, sc.json().code]).toEqual([400, "bad_json"]);
    const scope = await create(uniqueBasin(), { scope: "cloud:mars-1" });
    expect([scope.status, scope.json().code]).toEqual([400, "bad_json"]);
  });

  it("6: PUT creates (201) then answers 200 for the same, empty or missing body", async () => {
    const name = uniqueBasin();
    const first = await c.call("PUT", `/v1/basins/${name}`, { json: { config: { create_stream_on_read: true } } });
    expect(first.status).toBe(201);
    expect(first.headers["svc-provision-result"]).toBe("created");
    expect(first.json()).toMatchObject({ name, state: "active" });
    const same = await c.call("PUT", `/v1/basins/${name}`, { json: { config: { create_stream_on_read: true } } });
    expect([same.status, same.headers["svc-provision-result"]]).toEqual([200, "noop"]);
    expect((await c.call("PUT", `/v1/basins/${name}`)).status).toBe(200);
    expect((await c.call("PUT", `/v1/basins/${name}`, { json: {} })).status).toBe(200);
    // Seed-era merge: fields absent from the body are unchanged.
    const cfg = (await c.call("GET", `/v1/basins/${name}`)).json();
    expect(cfg.create_stream_on_read).toBe(true);
    const upd = await c.call("PUT", `/v1/basins/${name}`, { json: { config: { create_stream_on_append: true } } });
    expect([upd.status, upd.headers["svc-provision-result"]]).toEqual([200, "updated"]);
    expect((await c.call("GET", `/v1/basins/${name}`)).json()).toMatchObject({
      create_stream_on_read: true,
      create_stream_on_append: true,
    });
  });

  it("7: PATCH {} is a no-op; PATCH of a missing basin is basin_not_found", async () => {
    const name = uniqueBasin();
    await create(name, { config: { create_stream_on_append: true } });
    const before = (await c.call("GET", `/v1/basins/${name}`)).json();
    const r = await c.call("PATCH", `/v1/basins/${name}`, { json: {} });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual(before);
    const missing = await c.call("PATCH", `/v1/basins/${uniqueBasin()}`, { json: {} });
    expect([missing.status, missing.json().code]).toEqual([404, "basin_not_found"]);
  });

  it("8: PATCH merges nested defaults; null clears them", async () => {
    const name = uniqueBasin();
    await create(name, {
      config: { default_stream_config: { storage_class: "standard", retention_policy: { infinite: {} } } },
    });
    const r = await c.call("PATCH", `/v1/basins/${name}`, {
      json: { default_stream_config: { timestamping: { mode: "arrival" } } },
    });
    expect(r.status).toBe(200);
    const d = r.json().default_stream_config;
    expect(d.storage_class).toBe("standard");
    expect(d.retention_policy).toEqual({ infinite: {} });
    expect(d.timestamping.mode).toBe("arrival");
    const cleared = await c.call("PATCH", `/v1/basins/${name}`, { json: { default_stream_config: null } });
    // Defaults are shown as in effect: cleared means the system's.
    expect(cleared.json().default_stream_config).toEqual({
      storage_class: "express",
      retention_policy: { age: 604800 },
      timestamping: { mode: "client-prefer", uncapped: false },
      delete_on_empty: { min_age_secs: 0 },
    });
    expect((await c.call("GET", `/v1/basins/${name}`)).json()).toEqual(cleared.json());
  });

  it("9: DELETE → 202, deleting state, 409s, then 404 after cleanup", async () => {
    const name = uniqueBasin();
    await create(name);
    await c.call("POST", "/v1/streams", { basin: name, json: { stream: "s" } });
    expect((await c.call("DELETE", `/v1/basins/${name}`)).status).toBe(202);
    const listed = (await c.call("GET", "/v1/basins", { query: { prefix: name } })).json().basins;
    expect(listed).toHaveLength(1);
    expect(listed[0].state).toBe("deleting");
    expect(listed[0].deleted_at).not.toBeNull();
    expect((await c.call("DELETE", `/v1/basins/${name}`)).status).toBe(202);
    const recreate = await create(name);
    expect([recreate.status, recreate.json().code]).toEqual([409, "basin_deletion_pending"]);
    const patch = await c.call("PATCH", `/v1/basins/${name}`, { json: {} });
    expect([patch.status, patch.json().code]).toEqual([409, "basin_deletion_pending"]);
    const put = await c.call("PUT", `/v1/basins/${name}`);
    expect([put.status, put.json().code]).toEqual([409, "basin_deletion_pending"]);
    const newStream = await c.call("POST", "/v1/streams", { basin: name, json: { stream: "t" } });
    expect([newStream.status, newStream.json().code]).toEqual([409, "basin_deletion_pending"]);
    const append = await c.call("POST", "/v1/streams/s/records", { basin: name, json: { records: [{ body: "x" }] } });
    expect([append.status, append.json().code]).toEqual([409, "stream_deletion_pending"]);
    await eventually(async () => (await c.call("GET", `/v1/basins/${name}`)).status === 404);
    const gone = await c.call("DELETE", `/v1/basins/${name}`);
    expect([gone.status, gone.json().code]).toEqual([404, "basin_not_found"]);
    expect((await create(name)).status).toBe(201);
  });

  it("10: GET with a bad name is bad_path; a missing basin is basin_not_found", async () => {
    const bad = await c.call("GET", "/v1/basins/NOT_VALID");
    expect([bad.status, bad.json().code]).toEqual([400, "bad_path"]);
    const missing = await c.call("GET", `/v1/basins/${uniqueBasin()}`);
    expect([missing.status, missing.json().code]).toEqual([404, "basin_not_found"]);
    const name = uniqueBasin();
    await create(name);
    expect((await c.call("GET", `/v1/basins/${name}`)).json()).toEqual({
      default_stream_config: {
        storage_class: "express",
        retention_policy: { age: 604800 },
        timestamping: { mode: "client-prefer", uncapped: false },
        delete_on_empty: { min_age_secs: 0 },
      },
      stream_cipher: null,
      create_stream_on_append: false,
      create_stream_on_read: false,
    });
  });

  it("11: list: limits, pagination with has_more, prefix and exclusive start_after", async () => {
    const prefix = uniqueBasin("p").slice(0, 30);
    const names = [`${prefix}-a1`, `${prefix}-b2`, `${prefix}-c3`];
    for (const n of [...names].reverse()) expect((await create(n)).status).toBe(201);
    const page1 = (await c.call("GET", "/v1/basins", { query: { prefix, limit: 2 } })).json();
    expect(page1.basins.map((b: { name: string }) => b.name)).toEqual(names.slice(0, 2));
    expect(page1.has_more).toBe(true);
    const page2 = (await c.call("GET", "/v1/basins", { query: { prefix, limit: 2, start_after: names[1]! } })).json();
    expect(page2.basins.map((b: { name: string }) => b.name)).toEqual([names[2]]);
    expect(page2.has_more).toBe(false);
    const all = (await c.call("GET", "/v1/basins", { query: { prefix } })).json();
    expect(all.basins).toHaveLength(3);
    for (const limit of [0, 5000]) {
      const r = await c.call("GET", "/v1/basins", { query: { limit } });
      expect(r.status).toBe(200);
      expect(r.json().basins.length).toBeLessThanOrEqual(1000);
    }
    const sorted = (await c.call("GET", "/v1/basins")).json().basins.map((b: { name: string }) => b.name);
    expect(sorted).toEqual([...sorted].sort());
  });

  it("12: bad list queries are bad_query", async () => {
    for (const query of [{ limit: -1 }, { prefix: "-x" }, { limit: "ten" }, { start_after: "UPPER" }] as Record<
      string,
      string | number
    >[]) {
      const r = await c.call("GET", "/v1/basins", { query });
      expect([r.status, r.json().code]).toEqual([400, "bad_query"]);
    }
  });
});

describe("server surface", () => {
  it("answers /health and /ping with OK, 404 for unknown routes, 405 for wrong methods", async () => {
    const c = liteClient(lite);
    for (const path of ["/health", "/ping"]) {
      const r = await c.call("GET", path);
      expect([r.status, r.text()]).toEqual([200, "OK"]);
    }
    const unknown = await c.call("GET", "/v1/nope");
    expect([unknown.status, unknown.body.length]).toEqual([404, 0]);
    const wrong = await c.call("POST", "/v1/basins/some-basin-1");
    expect(wrong.status).toBe(405);
    const preflight = await c.call("OPTIONS", "/v1/basins", {
      headers: { origin: "http://app.test", "access-control-request-method": "POST" },
    });
    expect([preflight.status, preflight.headers["access-control-allow-origin"]]).toEqual([204, "*"]);
    const cors = await c.call("GET", "/v1/basins", { headers: { origin: "http://app.test" } });
    expect(cors.headers["access-control-allow-origin"]).toBe("*");
    expect((await c.call("GET", "/v1/access-tokens")).json()).toEqual({ access_tokens: [], has_more: false });
    // Metrics and locations are served on every storage (test/e2e/lite-metrics.e2e.test.ts).
    const noSet = await c.call("GET", "/v1/metrics");
    expect([noSet.status, noSet.json().code]).toEqual([400, "bad_query"]);
    expect((await c.call("GET", "/v1/locations")).status).toBe(200);
  });
});
