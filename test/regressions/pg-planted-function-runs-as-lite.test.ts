/**
 * Found by a security review (issue 43, item 4): lite called `nextval` and `array_fill`
 * unqualified and set no search_path. Where any role may create objects in schema public
 * (PostgreSQL 14's default, `GRANT CREATE ON SCHEMA public TO PUBLIC`), a login-only role
 * planted `public.nextval(text)` (a better match for a quoted sequence name than
 * `pg_catalog.nextval(regclass)`); lite ran it as its own role at the next stream creation, so
 * the intruder could read every tenant's records and mint a token.
 *
 * Now every session of a node has the search path `pg_catalog, <lite's schema>, pg_temp`, the
 * built-ins lite calls are qualified (the append function carries the fixed path too), and a
 * node refuses to start, with exit code 6 and the REVOKE to run, where PUBLIC may create in its
 * schema. A schema opened to PUBLIC after the node started still runs nothing planted there.
 */
import { spawn } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, SVC_BIN, startLite } from "../helpers/lite.js";
import { freshDatabase, PG_PASSWORD, testPostgresUrl } from "../helpers/postgres.js";

const role = `planter_${process.pid}`;
const PASSWORD = "planter-pw";

function urlOf(db: { url: string }, user?: string): string {
  const u = new URL(testPostgresUrl()!);
  u.pathname = new URL(db.url).pathname;
  if (user) {
    u.username = user;
    u.password = PASSWORD;
  }
  return u.toString();
}

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

/** PostgreSQL 14's default on `db` (PUBLIC may create in public), and the intruder's traps there. */
async function plant(db: { url: string }): Promise<void> {
  const admin = await connect(urlOf(db));
  await admin.query("GRANT CREATE ON SCHEMA public TO PUBLIC");
  await admin.end();
  const intruder = await connect(urlOf(db, role));
  await intruder.query("CREATE TABLE public.trace (what text)");
  await intruder.query("GRANT INSERT ON public.trace TO PUBLIC");
  await intruder.query(`CREATE FUNCTION public.nextval(text) RETURNS bigint LANGUAGE sql AS $$
    INSERT INTO public.trace VALUES ('nextval run by ' || current_user); SELECT pg_catalog.nextval($1::regclass) $$`);
  await intruder.query(`CREATE FUNCTION public.array_fill(bigint, integer[]) RETURNS bigint[] LANGUAGE sql AS $$
    INSERT INTO public.trace VALUES ('array_fill run by ' || current_user); SELECT pg_catalog.array_fill($1, $2) $$`);
  await intruder.end();
}

async function traces(db: { url: string }): Promise<string[]> {
  const admin = await connect(urlOf(db));
  try {
    return (await admin.query<{ what: string }>("SELECT what FROM public.trace")).rows.map((r) => r.what);
  } finally {
    await admin.end();
  }
}

beforeAll(async () => {
  const admin = await connect(testPostgresUrl()!);
  await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${PASSWORD}'`);
  await admin.end();
});

afterAll(async () => {
  const admin = await connect(testPostgresUrl()!);
  await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await admin.end();
});

describe("a schema others may create in", () => {
  it("a node refuses to start on it, saying what to revoke", async () => {
    const db = await freshDatabase();
    try {
      await plant(db);
      const child = spawn(process.execPath, [SVC_BIN, "lite", "--port", "0", "--storage", db.url], {
        env: { ...process.env, PGPASSWORD: PG_PASSWORD },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      // A node that starts (the bug) prints its export lines and serves: stop it then.
      child.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes("export SVC_ACCOUNT_ENDPOINT")) child.kill("SIGKILL");
      });
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
      clearTimeout(killer);
      expect(code, stderr).toBe(6);
      expect(stderr).toContain('REVOKE CREATE ON SCHEMA "public" FROM PUBLIC');
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).not.toContain(PG_PASSWORD);
    } finally {
      await db.drop();
    }
  }, 60_000);

  it("opened after the node started: nothing planted there runs as lite's role", async () => {
    const db = await freshDatabase();
    let lite: Lite | undefined;
    try {
      lite = await startLite({ postgres: db.url });
      await plant(db);
      // The traps work: a session with the default search path runs them.
      const victim = await connect(urlOf(db));
      await victim.query("SELECT nextval('svc_stream_ids')");
      await victim.query("SELECT array_fill(NULL::bigint, ARRAY[1])");
      await victim.end();
      expect(await traces(db)).toHaveLength(2);

      const c = liteClient(lite);
      const basin = `planted-${process.pid}`;
      expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
      expect((await c.call("POST", "/v1/streams", { basin, json: { stream: "s" } })).status).toBe(201);
      const r = await c.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "x" }] } });
      expect(r.status).toBe(200);
      // Only the two runs of the test's own session.
      expect(await traces(db)).toHaveLength(2);
    } finally {
      await lite?.stop();
      await db.drop();
    }
  }, 60_000);
});
