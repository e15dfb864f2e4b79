/**
 * The connections of one node to PostgreSQL: a write pool (appends and metadata changes) and a
 * read pool, so reads never queue behind commits. Nothing here blocks the event loop: every
 * query is a promise.
 *
 * Every wait has one deadline, connection and statements together (wait.ts): a write
 * `--storage-timeout` (D), a read min(5 s, D). A database that stops answering without
 * closing its connections (a frozen host, a partition) would otherwise hold each request for
 * a deadline, one after another, in every queue (the pool's, a stream's writes, the metadata
 * lock): the first wait that reaches its deadline while the database has answered nothing for
 * a second opens a circuit, and until a probe (every 500 ms) is answered every wait fails at
 * once with 503 (nothing sent), those already waiting for a connection included.
 */
import pg from "pg";
import { SvcError } from "../../../errors.js";
import type { PgConfig } from "./config.js";
import { notWritten, surelyRolledBack } from "./outcome.js";
import { Primary } from "./primary.js";
import { type Acquiring, acquire, bounded, NoAnswer, NotSent } from "./wait.js";

/** A database number as a safe integer (bigint columns come back as text). */
export function num(v: unknown): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`database value ${String(v)} is not a safe integer`);
  return n;
}

export function bytes(v: unknown): Buffer {
  const u = v as Uint8Array;
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/**
 * A failed statement: retryable; not applied when the database answered with an error (its
 * transaction rolled back: outcome.ts), else its outcome unknown to the client (it may have
 * committed). The driver's text stays out of the message a client gets (it may quote what the
 * request sent, and tells the client about the database): it is the error's cause, which lite logs.
 */
function storageError(e: unknown): SvcError {
  if (e instanceof NotSent) return unavailable(e);
  if (!(e instanceof SvcError) && surelyRolledBack(e)) return notWritten(e);
  return e instanceof SvcError
    ? e
    : new SvcError({
        code: "storage",
        origin: "server",
        status: 500,
        retryable: true,
        message: "the database failed the write (the server's log says why)",
        cause: e,
      });
}

/** A failed read, or a write that was never sent: nothing was changed, retry. */
export function unavailable(e: unknown): SvcError {
  return e instanceof SvcError
    ? e
    : new SvcError({
        code: "unavailable",
        origin: "server",
        status: 503,
        retryable: true,
        sideEffects: !(e instanceof NotSent),
        // NotSent is this node's own account (the database has not answered); a driver's text is only logged.
        message:
          e instanceof NotSent
            ? `database unavailable: ${e.message}`
            : "the database failed the read (the server's log says why)",
        cause: e,
      });
}

export type Tx = pg.PoolClient;

/** How long a read may wait for the database at most (connection and statement together). */
const READ_TIMEOUT_MS = 5_000;
/** A wait that reaches its deadline opens the circuit when the database has answered nothing for this long. */
const QUIET_MS = 1_000;
const PROBE_MS = 500;

interface WaitOptions {
  /** When the caller began waiting (performance.now()), if before this call: the deadline counts from then. */
  since?: number;
  /** A shorter deadline than the pool's (ms). */
  ms?: number;
}

export class Db {
  readonly writes: pg.Pool;
  readonly reads: pg.Pool;
  /** A write's deadline (`--storage-timeout`) and a read's. */
  readonly writeMs: number;
  readonly readMs: number;
  /** Open while the database does not answer: since when (Date.now()). */
  private stuckSince: number | undefined;
  /** When the database last answered anything (performance.now()). */
  private lastAnswer = performance.now();
  /** Waits for a connection, failed at once when the circuit opens. */
  private readonly acquiring = new Set<Acquiring>();
  private closed = false;

  constructor(
    readonly config: PgConfig,
    private readonly log: (m: string) => void,
    /** Which host is written to; every connection of the pools goes there (primary.ts). */
    readonly primary: Primary = new Primary(config, log),
  ) {
    this.writeMs = config.writeTimeoutMs;
    this.readMs = Math.min(READ_TIMEOUT_MS, config.writeTimeoutMs);
    const Client = primary.clientClass();
    // Checked before the pool hands a new connection out (with its error listener already on).
    const onConnect = (c: pg.ClientBase): Promise<void> => primary.check(c);
    // statement_timeout: the server gives up too (a lock wait, a slow plan), not only this node.
    this.writes = new pg.Pool({
      ...primary.options(this.writeMs),
      Client,
      onConnect,
      statement_timeout: this.writeMs,
      max: config.poolSize,
    });
    this.reads = new pg.Pool({
      ...primary.options(this.readMs),
      Client,
      onConnect,
      statement_timeout: this.readMs,
      max: config.poolSize,
      application_name: "svc lite reads",
    });
    for (const p of [this.writes, this.reads])
      p.on("error", (e) => {
        log(`database connection lost: ${e.message}`);
        primary.suspect(e);
      });
  }

  /** A read through the read pool; failures are 503 `unavailable`. */
  async read<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      return (await this.wait(this.reads, this.readMs, (c) => c.query<R>(sql, params))).rows;
    } catch (e) {
      throw unavailable(e);
    }
  }

  /** One statement through the write pool; failures are 500 `storage` (outcome unknown), 503 when never sent. */
  async write<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[] = [],
    opts: WaitOptions = {},
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.wait(this.writes, this.writeMs, (c) => c.query<R>(sql, params), opts);
    } catch (e) {
      throw storageError(e);
    }
  }

  /**
   * `body` in one transaction: committed when it returns, rolled back when it throws (a
   * false from it rolls back too); the whole of it within one write deadline.
   */
  async tx(body: (c: Tx) => Promise<boolean>): Promise<boolean> {
    try {
      return await this.wait(this.writes, this.writeMs, async (c) => {
        await c.query("BEGIN");
        try {
          const ok = await body(c);
          await c.query(ok ? "COMMIT" : "ROLLBACK");
          return ok;
        } catch (e) {
          await c.query("ROLLBACK").catch(() => {});
          throw e;
        }
      });
    } catch (e) {
      throw storageError(e);
    }
  }

  /**
   * A connection of `pool` and `body` on it, within `ms` from `since` (or now). A connection
   * whose wait failed for any reason but the database's answer (a deadline, a lost
   * connection) is closed, not given back to the pool.
   */
  private async wait<T>(
    pool: pg.Pool,
    ms: number,
    body: (c: pg.PoolClient) => Promise<T>,
    opts: WaitOptions & { probe?: boolean } = {},
  ): Promise<T> {
    const started = opts.since ?? performance.now();
    const end = started + Math.min(ms, opts.ms ?? ms);
    if (this.stuckSince !== undefined && !opts.probe)
      throw new NotSent(`the database has not answered for ${Math.round((Date.now() - this.stuckSince) / 1000)} s`);
    if (end <= performance.now()) throw new NotSent(`waited ${Math.round(ms)} ms before the database was asked`);
    let c: pg.PoolClient;
    try {
      c = await acquire(pool, end - performance.now(), opts.probe ? new Set() : this.acquiring);
    } catch (e) {
      this.primary.suspect(e);
      this.gaveUp(e);
      throw e;
    }
    const r = await bounded(c, end - performance.now(), body);
    // A connection to a host that is no longer the one written to is never reused.
    const stale = (): Error | undefined => (this.primary.stale(c) ? new Error("the primary moved") : undefined);
    if (r.ok) {
      c.release(stale());
      this.answered();
      return r.value;
    }
    this.primary.suspect(r.error);
    c.release(r.reusable ? stale() : new Error("the connection failed or was cut"));
    if (r.reusable) this.answered();
    else this.gaveUp(r.error);
    throw r.error;
  }

  /** The database answered: waits go through again. */
  private answered(): void {
    this.lastAnswer = performance.now();
    if (this.stuckSince === undefined) return;
    this.stuckSince = undefined;
    this.log("the database answers again");
  }

  /** A wait failed: one that reached its deadline opens the circuit if the database has been silent for QUIET_MS. */
  private gaveUp(e: unknown): void {
    if (!(e instanceof NoAnswer || (e instanceof NotSent && e.timedOut))) return;
    if (this.stuckSince !== undefined || this.closed) return;
    if (performance.now() - this.lastAnswer < QUIET_MS) return;
    this.stuckSince = Date.now() - Math.round(performance.now() - this.lastAnswer);
    this.log(
      `the database did not answer (${(e as Error)?.message ?? e}): requests fail at once until it answers again`,
    );
    const refused = new NotSent("the database is not answering");
    for (const w of [...this.acquiring]) w.fail(refused);
    // Silent, perhaps lost: another of the URL's hosts may have been promoted meanwhile.
    this.primary.suspect(new Error("not answering"));
    const probe = (): void => {
      const t = setTimeout(() => {
        if (this.closed || this.stuckSince === undefined) return;
        this.wait(this.reads, this.readMs, (c) => c.query("SELECT 1"), { probe: true }).then(
          () => undefined,
          () => probe(),
        );
      }, PROBE_MS);
      t.unref();
    };
    probe();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.writes.end().catch(() => {}), this.reads.end().catch(() => {})]);
  }
}
