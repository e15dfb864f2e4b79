/**
 * A real PostgreSQL for the tests: started once per vitest run by test/global-postgres.ts
 * (startPostgres, shared with the benches in test/bench/lib/postgres.mjs), its URL in
 * SVC_TEST_PG_URL. Each test gets its own database (`freshDatabase`), so suites never see
 * each other.
 */
import pg from "pg";

export { PG_PASSWORD, startPostgres } from "../bench/lib/postgres.mjs";

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
