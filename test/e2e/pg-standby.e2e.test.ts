/**
 * scripts/lib/pg-pair.mjs, the PostgreSQL pair behind `npm run cluster -- --standby` (and for
 * tests of a failover): a primary and a streaming-replication standby, synchronous or not. The
 * standby follows (a row committed on the primary appears there), refuses writes until
 * promoted, takes them after the primary was killed and it was promoted, and stop() leaves no
 * process and no file behind.
 */
import { existsSync } from "node:fs";
import type pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { startPgPair } from "../../scripts/lib/pg-pair.mjs";
import { eventually } from "../helpers/lite.js";

type Pair = Awaited<ReturnType<typeof startPgPair>>;
let pair: Pair | undefined;

afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

async function query<R extends pg.QueryResultRow>(c: Promise<pg.Client>, sql: string): Promise<R[]> {
  const client = await c;
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

const running = (pid: number): boolean => existsSync(`/proc/${pid}`);

describe.each(["sync", "async"] as const)("a primary and a standby, %s", (mode) => {
  it("follows, is promoted after the primary is killed, and goes without a trace", async () => {
    pair = await startPgPair({ standby: mode });
    const { primary, standby } = pair.servers;
    expect(standby).toBeDefined();
    expect(pair.multiHostUrl).toBe(
      `postgres://svc@127.0.0.1:${primary.port},127.0.0.1:${standby!.port}/svc?target_session_attrs=read-write`,
    );
    expect(await query(pair.admin(), "SELECT application_name, sync_state FROM pg_stat_replication")).toEqual([
      { application_name: "standby", sync_state: mode },
    ]);
    await query(pair.admin(primary, "svc"), "CREATE TABLE t (x int); INSERT INTO t VALUES (1)");
    await eventually(async () => {
      const rows = await query<{ x: number }>(pair!.admin(standby, "svc"), "SELECT x FROM t").catch(() => []);
      return rows.length === 1;
    }, 20_000);
    await expect(query(pair.admin(standby, "svc"), "INSERT INTO t VALUES (2)")).rejects.toMatchObject({
      code: "25006", // read_only_sql_transaction
    });

    await pair.killPrimary();
    expect(primary.running()).toBe(false);
    expect(await primary.ended).toBe("was killed by SIGKILL");
    await pair.promote();
    await query(pair.admin(standby, "svc"), "INSERT INTO t VALUES (2)");
    expect(await query(pair.admin(standby, "svc"), "SELECT x FROM t ORDER BY x")).toEqual([{ x: 1 }, { x: 2 }]);

    const dir = pair.dir;
    await pair.stop();
    pair = undefined;
    expect(running(primary.pid) || running(standby!.pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  }, 120_000);
});
