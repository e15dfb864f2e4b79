/**
 * The tests' own PostgreSQL (test/bench/lib/postgres.mjs: one per test run, and one per bench)
 * had the superuser `postgres` with a password written in the repository, on 127.0.0.1: while a
 * run went on, any local user could log in with it (issue 43 found the same in `npm run
 * cluster`). Now the password is made per run (SVC_TEST_PG_PASSWORD, inherited by the run's
 * workers and children), so the one in the repository's history works nowhere.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PG_PASSWORD, testPostgresUrl } from "../helpers/postgres.js";

const url = testPostgresUrl();

async function login(password: string): Promise<string> {
  const u = new URL(url!);
  const c = new pg.Client({ host: u.hostname, port: Number(u.port), user: "postgres", password, database: "postgres" });
  try {
    await c.connect();
    return "logged in";
  } catch {
    return "refused";
  } finally {
    await c.end().catch(() => {});
  }
}

describe("the test run's PostgreSQL", () => {
  it.skipIf(url === undefined)("refuses the password that was in the repository, and takes the run's", async () => {
    expect(await login("svc-test-password")).toBe("refused");
    expect(PG_PASSWORD).not.toBe("svc-test-password");
    expect(PG_PASSWORD.length).toBeGreaterThanOrEqual(24);
    expect(await login(PG_PASSWORD)).toBe("logged in");
  });
});
