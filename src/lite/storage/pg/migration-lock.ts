/**
 * The lock every node takes to migrate the schema at start (a transaction-level advisory lock:
 * nodes starting together apply each migration once). A node that cannot take it says so
 * within TELL_AFTER_MS, naming who holds it (pg_locks and pg_stat_activity: pid, role,
 * application_name, client address), again every TELL_EVERY_MS, and gives up after `waitMs`
 * with one line that says what to do. Another node holds it only while it migrates (a moment);
 * any role that may connect can also take an advisory lock, so a session of another role that
 * keeps it would otherwise hold every starting node without a word.
 */
import type pg from "pg";
import { SvcError } from "../../../errors.js";

/** Any fixed 64-bit key: the lock all svc lite nodes take while migrating ("svc_li"). */
export const MIGRATION_LOCK = 0x7376_635f_6c69;
const TELL_AFTER_MS = 2_000;
const TELL_EVERY_MS = 10_000;
const TRY_EVERY_MS = 200;

interface HolderRow {
  pid: number;
  usename: string | null;
  application_name: string | null;
  client_addr: string | null;
}

/** Who holds the lock, as "pid 123 (role svc, application "x", client 10.0.0.5)", or undefined. */
async function migrationLockHolder(client: pg.Client): Promise<string | undefined> {
  const { rows } = await client.query<HolderRow>(
    `SELECT l.pid, a.usename, a.application_name, pg_catalog.host(a.client_addr) AS client_addr
     FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()
       AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())
       AND l.classid::bigint = $1 AND l.objid::bigint = $2 AND l.objsubid = 1
     LIMIT 1`,
    [Math.floor(MIGRATION_LOCK / 2 ** 32), MIGRATION_LOCK % 2 ** 32],
  );
  const h = rows[0];
  if (!h) return undefined;
  const app = h.application_name ? `application ${JSON.stringify(h.application_name)}` : "no application name";
  const from = h.client_addr ? `client ${h.client_addr}` : "a local socket or an address not shown to this role";
  return `pid ${h.pid} (role ${JSON.stringify(h.usename ?? "?")}, ${app}, ${from})`;
}

/** Takes the migration lock in `client`'s open transaction, telling and giving up as above. */
export async function lockForMigration(
  client: pg.Client,
  where: string,
  log: (m: string) => void,
  waitMs: number,
): Promise<void> {
  const started = performance.now();
  let told = -Infinity;
  for (;;) {
    const { rows } = await client.query<{ got: boolean }>("SELECT pg_catalog.pg_try_advisory_xact_lock($1) AS got", [
      MIGRATION_LOCK,
    ]);
    if (rows[0]?.got === true) return;
    const waited = performance.now() - started;
    if (waited >= waitMs || (waited >= TELL_AFTER_MS && performance.now() - told >= TELL_EVERY_MS)) {
      const holder = (await migrationLockHolder(client)) ?? "a session that has just ended";
      if (waited >= waitMs) {
        throw new SvcError({
          code: "unavailable",
          origin: "server",
          status: 503,
          message:
            `cannot start on PostgreSQL at ${where}: its migration lock has been held for ${Math.round(waited / 1000)} s by ${holder}; ` +
            "if that is not a svc lite node starting, end that session (SELECT pg_terminate_backend(pid)) or keep such roles out (REVOKE CONNECT)",
        });
      }
      log(
        `waiting for the database's migration lock, held by ${holder} (giving up after ${Math.round(waitMs / 1000)} s)`,
      );
      told = performance.now();
    }
    await new Promise((r) => setTimeout(r, TRY_EVERY_MS));
  }
}
