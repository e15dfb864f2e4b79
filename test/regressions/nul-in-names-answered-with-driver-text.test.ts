/**
 * Found by a second security review: names holding NUL (U+0000) were accepted on lmdb and
 * failed on PostgreSQL with a retryable 5xx carrying PostgreSQL's own text (`invalid byte
 * sequence for encoding "UTF8": 0x00`): the two storages disagreed, a client retried for
 * nothing, and the database's words reached the client. Now NUL is refused in basin and stream
 * names, token ids and name prefixes everywhere (rules/names.ts), with 422 `invalid` wherever
 * the name comes from; and a storage driver's text never goes into a client's message: it is
 * the error's cause, which lite logs with the 5xx (checked by making a table disappear).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase, PG_PASSWORD } from "../helpers/postgres.js";

const NUL = "a\u0000b";

describe.each(["lmdb", "postgres"] as const)("NUL in names, on %s", (storage) => {
  let lite: Lite;
  let c: LiteClient;
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let basin: string;

  beforeAll(async () => {
    if (storage === "postgres") {
      db = await freshDatabase();
      lite = await startLite({ postgres: db.url });
    } else lite = await startLite();
    c = liteClient(lite);
    basin = uniqueBasin("nul");
    expect(
      (await c.call("POST", "/v1/basins", { json: { basin, config: { create_stream_on_append: true } } })).status,
    ).toBe(201);
  });

  afterAll(async () => {
    await lite?.stop();
    await db?.drop();
  });

  const cases: [string, string, { json?: unknown; basin?: boolean; query?: Record<string, string> }][] = [
    ["POST", "/v1/streams", { json: { stream: NUL }, basin: true }],
    ["PUT", `/v1/streams/${encodeURIComponent(NUL)}`, { basin: true }],
    ["GET", `/v1/streams/${encodeURIComponent(NUL)}/records/tail`, { basin: true }],
    ["POST", `/v1/streams/${encodeURIComponent(NUL)}/records`, { json: { records: [{ body: "x" }] }, basin: true }],
    ["GET", "/v1/streams", { basin: true, query: { prefix: "\u0000" } }],
    ["GET", "/v1/streams", { basin: true, query: { start_after: NUL } }],
    ["POST", "/v1/basins", { json: { basin: "abc\u0000defgh" } }],
    ["GET", "/v1/basins", { query: { prefix: "a\u0000" } }],
    ["POST", "/v1/access-tokens", { json: { id: NUL, scope: { ops: ["read"] } } }],
    ["POST", "/v1/access-tokens", { json: { id: "nul-scope", scope: { streams: { prefix: NUL }, ops: ["read"] } } }],
    ["GET", "/v1/access-tokens", { query: { prefix: NUL } }],
    ["DELETE", `/v1/access-tokens/${encodeURIComponent(NUL)}`, {}],
  ];

  it.each(cases)("%s %s: 422 invalid, and nothing stored", async (method, path, o) => {
    const r = await c.call(method, path, { json: o.json, basin: o.basin ? basin : undefined, query: o.query });
    expect(r.status, r.text()).toBe(422);
    expect(r.json().code).toBe("invalid");
    expect(r.json().message).toContain("NUL");
    expect(r.text()).not.toMatch(/UTF8|byte sequence|0x00/);
  });

  it("no stream with a NUL in its name exists afterwards", async () => {
    const list = await c.call("GET", "/v1/streams", { basin });
    expect(list.status).toBe(200);
    expect(list.json().streams).toEqual([]);
  });
});

describe("a database error", () => {
  let lite: Lite;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase();
    lite = await startLite({ postgres: db.url });
  });
  afterAll(async () => {
    await lite?.stop();
    await db?.drop();
  });

  it("reaches the client as a 5xx without the driver's text, which lite logs", async () => {
    const url = new URL(db.url);
    url.password = PG_PASSWORD;
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    try {
      await admin.query("ALTER TABLE svc_tokens RENAME TO svc_tokens_gone");
      const r = await liteClient(lite).call("GET", "/v1/access-tokens");
      expect(r.status).toBeGreaterThanOrEqual(500);
      expect(r.text()).not.toMatch(/svc_tokens|relation|does not exist/);
      expect(r.json().message).toContain("the server's log says why");
      const logged = /GET "\/v1\/access-tokens" → 5\d\d \w+: .*relation "svc_tokens" does not exist/;
      await eventually(async () => logged.test(lite.stderr()));
    } finally {
      await admin.query("ALTER TABLE svc_tokens_gone RENAME TO svc_tokens").catch(() => undefined);
      await admin.end();
    }
  });
});
