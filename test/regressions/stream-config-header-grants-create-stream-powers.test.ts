/**
 * Found by a second security review: `svc-stream-config` (S2's `s2-stream-config`) let a token
 * with only `append`, `read` or `check-tail` choose the retention (`age: 1`), `delete_on_empty`
 * and timestamping of a stream it auto-created: powers that otherwise need `create-stream`. A
 * tenant allowed to append could pre-create tomorrow's daily stream so that everyone's records
 * in it expired after a second. Now the header is honoured only for a token that may
 * `create-stream` that name; for any other, a request carrying it is refused with 403
 * `permission_denied` and nothing is created (without the header the stream is auto-created
 * with the basin's defaults, as before; the header is still ignored for a stream that exists).
 * On lmdb and on PostgreSQL, in both dialects.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";

const SHORT = JSON.stringify({ retention_policy: { age: 1 }, delete_on_empty: { min_age_secs: 1 } });

describe.each(["lmdb", "postgres"] as const)("on %s", (storage) => {
  let lite: Lite;
  let root: LiteClient;
  let drop: (() => Promise<void>) | undefined;
  let basin: string;

  /** A client with a token of `ops` on `basin`. */
  async function tokenFor(id: string, ops: string[]): Promise<LiteClient> {
    const r = await root.call("POST", "/v1/access-tokens", {
      json: { id, scope: { basins: { exact: basin }, streams: { prefix: "" }, ops } },
    });
    expect(r.status, r.text()).toBe(201);
    return liteClient({ url: lite.url, token: r.json().access_token });
  }

  beforeAll(async () => {
    if (storage === "postgres") {
      const db = await freshDatabase();
      drop = db.drop;
      lite = await startLite({ postgres: db.url });
    } else lite = await startLite();
    root = liteClient(lite);
    basin = uniqueBasin("daily");
    const made = await root.call("POST", "/v1/basins", {
      json: { basin, config: { create_stream_on_append: true, create_stream_on_read: true } },
    });
    expect(made.status).toBe(201);
  });

  afterAll(async () => {
    await lite?.stop();
    await drop?.();
  });

  const exists = async (stream: string) => (await root.call("GET", `/v1/streams/${stream}`, { basin })).status === 200;

  it.each(["svc", "s2"] as const)(
    "an append-only token sending %s-stream-config is refused 403, and nothing is created",
    async (dialect) => {
      const appender = await tokenFor(`appender-${dialect}`, ["append"]);
      const r = await appender.call("POST", `/v1/streams/tomorrow-${dialect}/records`, {
        headers: { [`${dialect}-basin`]: basin, [`${dialect}-stream-config`]: SHORT },
        json: { records: [{ body: "x" }] },
      });
      expect(r.status, r.text()).toBe(403);
      expect(r.json().code).toBe("permission_denied");
      expect(r.json().message).toContain("create-stream");
      expect(await exists(`tomorrow-${dialect}`)).toBe(false);
      // Without the header it may still auto-create, with the basin's defaults.
      const plain = await appender.call("POST", `/v1/streams/tomorrow-${dialect}/records`, {
        basin,
        json: { records: [{ body: "x" }] },
      });
      expect(plain.status).toBe(200);
      const cfg = (await root.call("GET", `/v1/streams/tomorrow-${dialect}`, { basin })).json();
      expect(cfg.retention_policy).not.toEqual({ age: 1 });
    },
  );

  it("a read-only or check-tail-only token sending it is refused too", async () => {
    const reader = await tokenFor("reader", ["read", "check-tail"]);
    const read = await reader.call("GET", "/v1/streams/r1/records", {
      basin,
      headers: { "svc-stream-config": SHORT },
      query: { seq_num: 0, wait: 0 },
    });
    expect(read.status, read.text()).toBe(403);
    const tail = await reader.call("GET", "/v1/streams/r2/records/tail", {
      basin,
      headers: { "svc-stream-config": SHORT },
    });
    expect(tail.status, tail.text()).toBe(403);
    expect(await exists("r1")).toBe(false);
    expect(await exists("r2")).toBe(false);
  });

  it("a token that may create-stream has the header honoured", async () => {
    const creator = await tokenFor("creator", ["append", "create-stream"]);
    const r = await creator.call("POST", "/v1/streams/mine/records", {
      basin,
      headers: { "svc-stream-config": SHORT },
      json: { records: [{ body: "x" }] },
    });
    expect(r.status, r.text()).toBe(200);
    const cfg = (await root.call("GET", "/v1/streams/mine", { basin })).json();
    expect(cfg.retention_policy).toEqual({ age: 1 });
  });

  it("is still ignored, not refused, for a stream that exists", async () => {
    const appender = await tokenFor("appender-existing", ["append"]);
    expect((await root.call("POST", "/v1/streams", { basin, json: { stream: "today" } })).status).toBe(201);
    const r = await appender.call("POST", "/v1/streams/today/records", {
      basin,
      headers: { "svc-stream-config": SHORT },
      json: { records: [{ body: "x" }] },
    });
    expect(r.status, r.text()).toBe(200);
    expect((await root.call("GET", "/v1/streams/today", { basin })).json().retention_policy).not.toEqual({ age: 1 });
  });
});
