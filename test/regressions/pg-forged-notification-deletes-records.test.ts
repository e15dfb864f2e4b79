/**
 * Found by a security review: lite nodes on PostgreSQL applied the `t<id>:<state>` payloads of
 * channel `svc_lite` as they arrived, and a stream's state only moves forward. NOTIFY needs no
 * table rights, and PUBLIC may connect to a new database by default: a role `intruder` with no
 * grants ran `SELECT pg_notify('svc_lite','t2:{"nextSeq":1000000,…,"trimPoint":1000000,…}')`;
 * both nodes reported tail 1000000, appends got 409, and within 5 s the sweep deleted every
 * stored batch of the stream. Now a notification is only a hint to re-read the stored state
 * from the tables, which only roles with rights can change: its content is never applied.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";
import { freshDatabase, testPostgresUrl } from "../helpers/postgres.js";

const basin = `forged-${process.pid}`;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let a: Lite;
let b: Lite;
const role = `intruder_${process.pid}`;

function dbUrl(user?: string): string {
  const admin = new URL(testPostgresUrl()!);
  const u = new URL(db.url);
  if (user) {
    admin.username = user;
    admin.password = "intruder-pw";
  }
  admin.pathname = u.pathname;
  return admin.toString();
}

beforeAll(async () => {
  db = await freshDatabase();
  a = await startLite({ postgres: db.url, env: { SVC_LITE_SWEEP_MS: "200" } });
  b = await startLite({ postgres: db.url, env: { SVC_LITE_SWEEP_MS: "200" } });
  const c = liteClient(a);
  expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
  expect((await c.call("POST", "/v1/streams", { basin, json: { stream: "s" } })).status).toBe(201);
  for (let i = 0; i < 5; i++)
    expect(
      (await c.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: `r${i}` }] } })).status,
    ).toBe(200);
  // both nodes have the stream loaded
  expect((await liteClient(b).call("GET", "/v1/streams/s/records/tail", { basin })).json().tail.seq_num).toBe(5);
  const admin = new pg.Client({ connectionString: dbUrl() });
  await admin.connect();
  await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'intruder-pw'`);
  await admin.end();
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await db?.drop();
  const admin = new pg.Client({ connectionString: testPostgresUrl()! });
  await admin.connect();
  await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await admin.end();
});

describe("a notification forged by a role without rights", () => {
  it("changes no node's view of the stream and deletes nothing", async () => {
    const admin = new pg.Client({ connectionString: dbUrl() });
    await admin.connect();
    const { rows } = await admin.query<{ id: string }>("SELECT id FROM svc_streams WHERE name = 's'");
    await admin.end();
    const id = rows[0]!.id;
    const intruder = new pg.Client({ connectionString: dbUrl(role) });
    await intruder.connect();
    // it has no rights on the tables...
    await expect(intruder.query("SELECT * FROM svc_tails")).rejects.toThrow(/permission denied/);
    // ...but may notify
    const state = JSON.stringify({
      nextSeq: 1_000_000,
      lastTimestamp: 1,
      fencingToken: "",
      trimPoint: 1_000_000,
      lastArrival: 1,
    });
    await intruder.query("SELECT pg_notify('svc_lite', $1)", [`t${id}:${state}`]);
    await intruder.end();
    await new Promise((r) => setTimeout(r, 1_500)); // several sweeps
    for (const node of [a, b]) {
      const c = liteClient(node);
      expect((await c.call("GET", "/v1/streams/s/records/tail", { basin })).json().tail.seq_num).toBe(5);
      const read = await c.call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 0 } });
      expect(read.json().records.map((r: { body: string }) => r.body)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    }
    const appended = await liteClient(b).call("POST", "/v1/streams/s/records", {
      basin,
      json: { records: [{ body: "r5" }] },
    });
    expect(appended.status).toBe(200);
    expect(appended.json().start.seq_num).toBe(5);
  });
});
