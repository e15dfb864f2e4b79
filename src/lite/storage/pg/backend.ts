/**
 * Storage on PostgreSQL: any number of svc lite nodes on one database (schema.ts). The
 * database sequences every append (sequencer-sql.ts, log.ts), keeps the catalog with
 * conditional changes (catalog.ts), sums every node's metrics (metrics.ts) and carries the
 * nodes' hints to each other (cluster.ts).
 * Commits are durable when answered (synchronous_commit=on): an ack follows its commit.
 */
import pg from "pg";
import { SvcError } from "../../../errors.js";
import type { MetricsStore, SharedBackend } from "../seams.js";
import { PgCatalog } from "./catalog.js";
import { PgCluster } from "./cluster.js";
import { type PgConfig, redactedUrl } from "./config.js";
import { Db } from "./db.js";
import { DbClock } from "./db-clock.js";
import { PgLog } from "./log.js";
import { PgMetrics } from "./metrics.js";
import { Primary } from "./primary.js";
import { migrate } from "./schema.js";
import { checkSchema } from "./session.js";
import { endWithin } from "./wait.js";

/** The timings of a node on PostgreSQL (their defaults and variables: lite/option-table.ts). */
export interface PgTimings {
  /** How often the tails of the streams a node serves are polled (a missed hint). */
  pollMs: number;
  /** How long a node serves a basin, stream or token from its cache at most. */
  cacheMs: number;
  /** The term of the sweep's lease (lease.ts). */
  leaseMs: number;
  /** How long a starting node waits for the migration lock before it gives up. */
  migrationWaitMs: number;
}

export class PgBackend implements SharedBackend {
  readonly kind = "shared";
  readonly durable = true;
  readonly metrics: MetricsStore<"shared">;

  private constructor(
    readonly config: PgConfig,
    private readonly db: Db,
    readonly catalog: PgCatalog,
    readonly log: PgLog,
    readonly cluster: PgCluster,
    /** The database's clock, as this node reads it: arrivals are stamped and ages judged by it. */
    readonly clock: DbClock,
  ) {
    this.metrics = new PgMetrics(db);
  }

  /**
   * Connects, finds and checks lite's schema (session.ts), applies migrations under the
   * migration lock, and opens the pools (every session with the schema's fixed search path). Each statement
   * here (the current migrations included) has the write deadline; the wait for the lock has
   * its own bound (migration-lock.ts).
   */
  static async open(given: PgConfig, log: (m: string) => void, timings: PgTimings): Promise<PgBackend> {
    let config = given;
    const where = redactedUrl(config);
    // Of several hosts, the writable one (when none answers, the first: its error is the one told).
    const primary = new Primary(config, log);
    await primary.find();
    const client = new pg.Client({
      ...primary.options(config.writeTimeoutMs),
      query_timeout: config.writeTimeoutMs,
      application_name: "svc lite starting",
    });
    // A connection lost here fails the awaited statement; unheard, its 'error' event would end the process.
    client.on("error", () => {});
    try {
      await client.connect();
      await primary.check(client);
      // Before any other statement: the schema lite works in, checked, and this session's path fixed.
      config = { ...config, schema: await checkSchema(client, where, log) };
      await migrate(client, where, log, timings.migrationWaitMs);
      await warnIfNotDurable(client, where, log);
    } catch (e) {
      if (e instanceof SvcError) throw e;
      const why = (e as Error).message;
      throw new SvcError({
        code: "unavailable",
        origin: "server",
        status: 503,
        message: `cannot use PostgreSQL at ${where}: ${/read timeout/i.test(why) ? `no answer within ${config.writeTimeoutMs} ms` : why}`,
      });
    } finally {
      await endWithin(client, 1_000);
    }
    primary.useConfig(config);
    const db = new Db(config, log, primary);
    const catalog = new PgCatalog(db, timings.cacheMs);
    const records = new PgLog(db);
    const cluster = new PgCluster(
      config,
      db,
      log,
      { pollMs: timings.pollMs, leaseMs: timings.leaseMs },
      {
        forget: (h) => catalog.forget(h),
        basinName: (id) => catalog.basinName(id),
      },
    );
    records.onChanged = (id) => cluster.announce({ kind: "tails", ids: [id] });
    const clock = new DbClock(db, log);
    await clock.start();
    return new PgBackend(config, db, catalog, records, cluster, clock);
  }

  get where(): string {
    return redactedUrl(this.config);
  }

  /**
   * The root token every node shares, kept as what checking it needs: its SHA-256 (hex), as an
   * issued token's hash is, so a role that may read the database cannot take the service's
   * root. The first node's `candidateHash` wins (`mine`). A database of an older svc keeps the
   * token itself under `root_token`: it is replaced by its hash here, once, and `upgraded` is
   * that token (the node that upgrades can still show it). See docs/security.md for reading
   * and rotating it.
   */
  async sharedRootHash(
    candidateHash: string,
    hashOf: (token: string) => string,
  ): Promise<{ hash: string; mine: boolean; upgraded: string | undefined }> {
    let upgraded: string | undefined;
    await this.db.tx(async (c) => {
      const old = await c.query<{ value: string }>("DELETE FROM svc_settings WHERE key = 'root_token' RETURNING value");
      upgraded = old.rows[0]?.value;
      if (upgraded !== undefined)
        await c.query(
          "INSERT INTO svc_settings (key, value) VALUES ('root_token_sha256', $1) ON CONFLICT (key) DO NOTHING",
          [hashOf(upgraded)],
        );
      return true;
    });
    const made = await this.db.write(
      "INSERT INTO svc_settings (key, value) VALUES ('root_token_sha256', $1) ON CONFLICT (key) DO NOTHING",
      [candidateHash],
    );
    const rows = await this.db.read<{ value: string }>(
      "SELECT value FROM svc_settings WHERE key = 'root_token_sha256'",
    );
    return { hash: rows[0]!.value, mine: made.rowCount === 1, upgraded };
  }

  async close(): Promise<void> {
    this.clock.close();
    await this.cluster.close();
    await this.db.close();
  }
}

/**
 * A node acknowledges an append once its commit returns; on a server with fsync (or
 * full_page_writes) off, that commit survives a crash of the process but not of its host. Both
 * are the server's settings, not ours to change: the node says so at start, once.
 */
async function warnIfNotDurable(client: pg.Client, where: string, log: (m: string) => void): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT name FROM pg_catalog.pg_settings WHERE name IN ('fsync', 'full_page_writes') AND setting = 'off' ORDER BY name",
  );
  if (rows.length === 0) return;
  const off = rows.map((r) => `${r.name}=off`).join(" and ");
  log(
    `warning: PostgreSQL at ${where} runs with ${off}: a crash of its host can lose or corrupt records this node has acknowledged`,
  );
}
