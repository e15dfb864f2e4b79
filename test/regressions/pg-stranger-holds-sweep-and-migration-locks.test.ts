/**
 * Found by a security review: a role that may only CONNECT to the database (PUBLIC's default
 * on a new database) could stop lite nodes without any table right. The periodic sweep ran on
 * the node holding a session advisory lock, and any session may take an advisory lock: a
 * stranger holding that key kept every node from sweeping for as long as it liked (expired
 * records stayed stored, delete-on-empty never ran). Holding the migration lock's key made a
 * starting node hang at start without a word.
 *
 * Now the sweep's leadership is a lease in a table the stranger may neither read nor write:
 * with the old key held, a node still takes the lease and removes expired records. A node that
 * cannot take the migration lock says so within seconds, naming the session that holds it
 * (pid, role, application_name, client address), and gives up after its bound
 * (SVC_LITE_PG_MIGRATION_WAIT_MS) with one line and exit code 6.
 */
import { spawn } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, SVC_BIN, startLite } from "../helpers/lite.js";
import { firstTime } from "../helpers/pg-cluster.js";
import { freshDatabase, PG_PASSWORD, testPostgresUrl } from "../helpers/postgres.js";

const role = `stranger_${process.pid}`;
const PASSWORD = "stranger-pw";
/** The keys lite used: the sweep's session advisory lock, and the migration lock. */
const OLD_SWEEP_LOCK = 0x7376_635f_7377;
const MIGRATION_LOCK = 0x7376_635f_6c69;
/** What the machine's load may add to a bound. */
const SLACK_MS = 3_000;

/** `db`'s URL as the superuser (with password) or as the stranger. */
function urlOf(db: { url: string }, user?: string): string {
  const u = new URL(testPostgresUrl()!);
  u.pathname = new URL(db.url).pathname;
  if (user) {
    u.username = user;
    u.password = PASSWORD;
  }
  return u.toString();
}

async function stranger(db: { url: string }): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: urlOf(db, role), application_name: "not a svc node" });
  await c.connect();
  return c;
}

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: testPostgresUrl()! });
  await admin.connect();
  await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${PASSWORD}'`);
  await admin.end();
});

afterAll(async () => {
  const admin = new pg.Client({ connectionString: testPostgresUrl()! });
  await admin.connect();
  await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await admin.end();
});

describe("a role that may only connect", () => {
  it("cannot keep the nodes from sweeping", async () => {
    const db = await freshDatabase();
    const intruder = await stranger(db);
    let lite: Lite | undefined;
    const admin = new pg.Client({ connectionString: urlOf(db) });
    try {
      await intruder.query("SELECT pg_advisory_lock($1)", [OLD_SWEEP_LOCK]);
      lite = await startLite({ postgres: db.url, env: { SVC_LITE_SWEEP_MS: "200" } });
      await admin.connect();

      const c = liteClient(lite);
      const basin = `stranger-sweep-${process.pid}`;
      expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
      const s = await c.call("POST", "/v1/streams", {
        basin,
        json: { stream: "expiring", config: { retention_policy: { age: 1 } } },
      });
      expect(s.status).toBe(201);
      expect(
        (await c.call("POST", "/v1/streams/expiring/records", { basin, json: { records: [{ body: "x" }] } })).status,
      ).toBe(200);
      const batches = async (): Promise<number> =>
        (await admin.query("SELECT count(*)::int AS n FROM svc_batches")).rows[0].n as number;
      expect(await batches()).toBe(1);
      const removed = await firstTime(async () => (await batches()) === 0, 10_000);
      expect(removed, `the expired record is swept: ${lite.stderr()}`).toBeDefined();
      expect(lite.stderr()).toContain("this node now runs the periodic sweep");
      // The lease's table is not the stranger's to read or write.
      await expect(intruder.query("SELECT * FROM svc_leases")).rejects.toThrow(/permission denied/);
      await expect(
        intruder.query("UPDATE svc_leases SET holder = 'me', expires_at = 'infinity' WHERE name = 'sweep'"),
      ).rejects.toThrow(/permission denied/);
    } finally {
      await intruder.end().catch(() => undefined);
      await admin.end().catch(() => undefined);
      await lite?.stop();
      await db.drop();
    }
  }, 60_000);

  it("holding the migration lock: a starting node names it within seconds and gives up after its bound", async () => {
    const db = await freshDatabase();
    const intruder = await stranger(db);
    try {
      const pid = (await intruder.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
      await intruder.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
      const WAIT_MS = 6_000;
      const started = Date.now();
      const child = spawn(process.execPath, [SVC_BIN, "lite", "--port", "0", "--storage", db.url], {
        env: { ...process.env, PGPASSWORD: PG_PASSWORD, SVC_LITE_PG_MIGRATION_WAIT_MS: String(WAIT_MS) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      let told: number | undefined;
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (told === undefined && stderr.includes("waiting for the database's migration lock")) told = Date.now();
      });
      const killer = setTimeout(() => child.kill("SIGKILL"), WAIT_MS + 20_000);
      const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
      clearTimeout(killer);
      const ended = Date.now();
      console.log(
        `migration lock held by a stranger: told at +${told === undefined ? "never" : told - started} ms, ` +
          `exit ${code} at +${ended - started} ms:\n${stderr}`,
      );
      expect(told, "the node says it waits").toBeDefined();
      expect(told! - started).toBeLessThanOrEqual(2_000 + SLACK_MS);
      const holder = `pid ${pid} (role "${role}", application "not a svc node", client 127.0.0.1)`;
      expect(stderr).toContain(`waiting for the database's migration lock, held by ${holder}`);
      expect(code).toBe(6);
      expect(ended - started).toBeLessThanOrEqual(WAIT_MS + SLACK_MS);
      const last = stderr.trim().split("\n").pop()!;
      expect(last).toMatch(/its migration lock has been held for \d+ s by /);
      expect(last).toContain(holder);
      expect(stderr).not.toContain(PG_PASSWORD);
    } finally {
      await intruder.end().catch(() => undefined);
      await db.drop();
    }
  }, 60_000);
});
