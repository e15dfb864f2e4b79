/**
 * The connections of one node to PostgreSQL: a write pool (appends and metadata changes,
 * each bounded by `--storage-timeout`) and a read pool, so reads never queue behind commits.
 * Nothing here blocks the event loop: every query is a promise.
 */
import pg from "pg";
import { SvcError } from "../../../errors.js";
import { clientOptions, type PgConfig } from "./config.js";

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
 * A failed statement: retryable, its outcome unknown to the client (it may have committed). The
 * driver's text stays out of the message a client gets (it may quote what the request sent, and
 * tells the client about the database): it is the error's cause, which lite logs.
 */
export function storageError(e: unknown): SvcError {
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

/** A failed read: nothing was changed, retry. */
export function unavailable(e: unknown): SvcError {
  return e instanceof SvcError
    ? e
    : new SvcError({
        code: "unavailable",
        origin: "server",
        status: 503,
        retryable: true,
        message: "the database failed the read (the server's log says why)",
        cause: e,
      });
}

export type Tx = pg.PoolClient;

/** How long a read may wait for the database before it fails (and opens the circuit). */
export const READ_TIMEOUT_MS = 5_000;

export class Db {
  readonly writes: pg.Pool;
  readonly reads: pg.Pool;
  /**
   * Open while the database does not answer reads: since when. A database that stops answering
   * without closing its connections (a frozen host, a partition) would otherwise hold every
   * request for a read timeout, one after another; with the circuit open reads fail at once
   * with 503, and a probe every 500 ms (or any write answered) closes it once the database answers again.
   */
  private stuckSince: number | undefined;
  /** When the database last answered anything (performance.now()). */
  private lastAnswer = 0;
  private closed = false;

  constructor(
    readonly config: PgConfig,
    private readonly log: (m: string) => void,
  ) {
    // Every statement is bounded: a database that stops answering (a partition, a frozen host:
    // no reset, no FIN) fails the statement instead of holding the stream's writes forever.
    const bounded = { statement_timeout: config.writeTimeoutMs, query_timeout: config.writeTimeoutMs + 1_000 };
    this.writes = new pg.Pool({ ...clientOptions(config), ...bounded, max: config.poolSize });
    this.reads = new pg.Pool({
      ...clientOptions(config),
      statement_timeout: READ_TIMEOUT_MS,
      query_timeout: READ_TIMEOUT_MS,
      max: config.poolSize,
      application_name: "svc lite reads",
    });
    for (const p of [this.writes, this.reads]) p.on("error", (e) => log(`database connection lost: ${e.message}`));
  }

  /** A read through the read pool; failures are 503 `unavailable`. */
  async read<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    if (this.stuckSince !== undefined) {
      throw unavailable(
        new Error(`the database has not answered for ${Math.round((Date.now() - this.stuckSince) / 1000)} s`),
      );
    }
    const started = performance.now();
    try {
      const rows = (await this.reads.query<R>(sql, params)).rows;
      this.lastAnswer = performance.now();
      return rows;
    } catch (e) {
      // A timeout opens the circuit, unless the database answered something since this read began.
      if (
        /timeout/i.test((e as Error).message ?? "") &&
        (e as { code?: string }).code === undefined &&
        this.lastAnswer < started
      )
        this.openCircuit();
      throw unavailable(e);
    }
  }

  /** The database answered (a write, or a probe): reads go through again. */
  private answered(): void {
    this.lastAnswer = performance.now();
    if (this.stuckSince === undefined) return;
    this.stuckSince = undefined;
    this.log("the database answers again");
  }

  private openCircuit(): void {
    if (this.stuckSince !== undefined) return;
    this.stuckSince = Date.now() - READ_TIMEOUT_MS;
    this.log(
      `the database did not answer a read within ${READ_TIMEOUT_MS} ms: reads fail at once until it answers again`,
    );
    const probe = (): void => {
      if (this.closed) return;
      const t = setTimeout(() => {
        this.reads.query("SELECT 1").then(
          () => this.answered(),
          () => {
            if (this.stuckSince !== undefined) probe();
          },
        );
      }, 500);
      t.unref();
    };
    probe();
  }

  /** One statement through the write pool; failures are 500 `storage` (outcome unknown). */
  async write<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      const r = await this.writes.query<R>(sql, params);
      this.answered();
      return r;
    } catch (e) {
      throw storageError(e);
    }
  }

  /**
   * `body` in one transaction: committed when it returns, rolled back when it throws (a
   * false from it rolls back too). A connection whose statement failed for any reason but the
   * database's answer (a timeout, a lost connection) is closed, not given back to the pool.
   *
   * The pool hands a connection out with no 'error' listener, and a connection that ends
   * while handed out emits 'error': unheard, that would end the process. Here it fails the
   * transaction (its statements fail with it) and the connection is not given back.
   */
  async tx(body: (c: Tx) => Promise<boolean>): Promise<boolean> {
    const c = await this.writes.connect().catch((e: unknown) => {
      throw storageError(e);
    });
    let failure: unknown;
    const lost = (e: Error): void => {
      failure ??= e;
    };
    c.on("error", lost);
    try {
      await c.query("BEGIN");
      const ok = await body(c);
      await c.query(ok ? "COMMIT" : "ROLLBACK");
      this.answered();
      return ok;
    } catch (e) {
      failure = e;
      await c.query("ROLLBACK").catch(() => {});
      throw storageError(e);
    } finally {
      const answered = failure === undefined || (failure as { code?: string }).code !== undefined;
      c.release(answered ? undefined : (failure as Error));
      c.removeListener("error", lost);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.writes.end().catch(() => {}), this.reads.end().catch(() => {})]);
  }
}
