/**
 * The PostgreSQL schema as versioned migrations, applied at start in one transaction under an
 * advisory lock, so nodes starting together apply each migration exactly once. A database of a
 * newer schema than this build knows is refused (an older svc must not write into it).
 *
 * Names use COLLATE "C": byte-wise order of UTF-8, the order listings promise (§2.0).
 *   svc_settings  key → value (`root_token_sha256`: the shared root token's SHA-256, hex; an
 *                 older svc kept the token itself as `root_token`, replaced at start: backend.ts)
 *   svc_basins    name → id, rev, deleted, BasinMeta (json text)
 *   svc_streams   (basin, name) → id, rev, deleted, StreamMeta (json text)
 *   svc_tails     stream id → next_seq, last_ts, fencing_token, trim_point, last_arrival,
 *                 removed_below (the removal mark: the sweep carried out removals up to
 *                 it, and no record below it is served again)
 *   svc_batches   (stream id, first_seq) → end_seq, last_ts, ts_floor, planned_seq, encoded
 *                 batch (batch-codec.ts; seq nums as planned, timestamps before the floor)
 *   svc_tokens    id → key_id, StoredToken (json text: a hash, never the secret)
 *   svc_stream_ids  ids of streams and basins
 *   svc_metric_*  metric counts, totals, stored bytes and their samples (metrics.ts)
 *   svc_leases    name → holder, expires_at (the sweep's leadership, lease.ts)
 *   svc_tail_regressions  stream id → went_from, went_to, found_at: a stream whose stored tail
 *                 was found below what a node had acknowledged (a failover to a standby that
 *                 lacked records; store/went-back.ts), kept so every node reports it
 *
 * Privileges: every table belongs to the role that migrated; PostgreSQL grants PUBLIC nothing
 * on a new table, so a role that may only connect can read or write none of them (unless the
 * database's owner changed its default privileges).
 */
import type pg from "pg";
import { SvcError } from "../../../errors.js";
import { MIGRATION_3 } from "./metrics.js";
import { lockForMigration } from "./migration-lock.js";
import { MIGRATION_2, MIGRATION_6 } from "./sequencer-sql.js";

const MIGRATIONS: readonly string[] = [
  // 1
  `CREATE TABLE svc_settings (key text PRIMARY KEY, value text NOT NULL);
   CREATE TABLE svc_basins (name text COLLATE "C" PRIMARY KEY, meta text NOT NULL);
   CREATE TABLE svc_streams (
     basin text COLLATE "C" NOT NULL, name text COLLATE "C" NOT NULL, id bigint NOT NULL UNIQUE,
     deleted boolean NOT NULL, meta text NOT NULL, PRIMARY KEY (basin, name));
   CREATE SEQUENCE svc_stream_ids;
   CREATE TABLE svc_tails (id bigint PRIMARY KEY, next_seq bigint NOT NULL, state text NOT NULL);
   CREATE TABLE svc_batches (
     id bigint NOT NULL, first_seq bigint NOT NULL, end_seq bigint NOT NULL, last_ts bigint NOT NULL,
     data bytea NOT NULL, PRIMARY KEY (id, first_seq));
   CREATE INDEX svc_batches_ts ON svc_batches (id, last_ts, first_seq);
   CREATE TABLE svc_tokens (id text COLLATE "C" PRIMARY KEY, key_id text NOT NULL UNIQUE, token text NOT NULL);`,
  // 2: the database as sequencer (sequencer-sql.ts)
  MIGRATION_2,
  // 3: metrics, summed by the database (metrics.ts)
  MIGRATION_3,
  // 4: the sweep's lease (lease.ts), free from the start
  `CREATE TABLE svc_leases (name text PRIMARY KEY, holder text NOT NULL, expires_at timestamptz NOT NULL);
   INSERT INTO svc_leases (name, holder, expires_at) VALUES ('sweep', '', '-infinity');`,
  // 5: where the sweep's removals end (log.ts deleteBatchesBelow): no node serves a record below it
  `ALTER TABLE svc_tails ADD COLUMN removed_below bigint NOT NULL DEFAULT 0;`,
  // 6: the append function with its built-ins qualified and a fixed search path (session.ts)
  MIGRATION_6,
  // 7: streams found to have lost acknowledged records (store/went-back.ts)
  `CREATE TABLE svc_tail_regressions (
     id bigint PRIMARY KEY, went_from bigint NOT NULL, went_to bigint NOT NULL,
     found_at timestamptz NOT NULL DEFAULT clock_timestamp());`,
];

/** Applies the migrations this database lacks; `waitMs`: how long to wait for the migration lock. */
export async function migrate(
  client: pg.Client,
  where: string,
  log: (m: string) => void,
  waitMs: number,
): Promise<number> {
  await client.query("BEGIN");
  try {
    await lockForMigration(client, where, log, waitMs);
    await client.query("CREATE TABLE IF NOT EXISTS svc_schema (version integer NOT NULL)");
    const { rows } = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM svc_schema");
    const current = rows[0]?.v ?? 0;
    if (current > MIGRATIONS.length) {
      throw new SvcError({
        code: "unavailable",
        origin: "server",
        status: 503,
        message: `the database at ${where} has svc lite schema version ${current}, newer than this svc knows (${MIGRATIONS.length}): upgrade svc on this node`,
      });
    }
    for (let v = current + 1; v <= MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v - 1]!);
      await client.query("INSERT INTO svc_schema (version) VALUES ($1)", [v]);
    }
    await client.query("COMMIT");
    return MIGRATIONS.length;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  }
}
