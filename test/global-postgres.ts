/**
 * vitest globalSetup: one PostgreSQL per run for the suites that use it (the lite e2e suites
 * in the `postgres` project, the multi-node tests). Its URL reaches the test workers as
 * SVC_TEST_PG_URL; it is stopped and its dir removed at the end of the run. A run of several
 * projects shares the one server (test/helpers/run-shared.ts).
 */
import { startPostgres } from "./helpers/postgres.js";
import { runShared } from "./helpers/run-shared.js";

export default function setup(): Promise<() => Promise<void>> {
  return runShared("postgres", async () => {
    const pg = await startPostgres();
    process.env.SVC_TEST_PG_URL = pg.adminUrl;
    return () => pg.stop();
  });
}
