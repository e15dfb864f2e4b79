/**
 * vitest globalSetup: one PostgreSQL per run for the suites that use it (the lite e2e suites
 * in the `postgres` project, the multi-node tests). Its URL reaches the test workers as
 * SVC_TEST_PG_URL; it is stopped and its dir removed at the end of the run.
 */
import { startPostgres } from "./helpers/postgres.js";

export default async function setup(): Promise<() => Promise<void>> {
  const pg = await startPostgres();
  process.env.SVC_TEST_PG_URL = pg.adminUrl;
  return () => pg.stop();
}
