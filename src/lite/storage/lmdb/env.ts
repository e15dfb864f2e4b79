/**
 * lite's lmdb environment in the data dir: the databases, the data format, and the one gate
 * every write goes through.
 *
 *   basins   name                            → BasinMeta (json)
 *   streams  basin 0x00 stream-name          → StreamMeta (json)   byte-wise order = §2.0 order
 *   tails    stream id (u32)                 → StreamStateRecord (json), VERSION = its nextSeq
 *   batches  id u32 · first seq u64 (BE)     → encoded batch (batch-codec.ts)
 *   tsidx    id u32 · last ts u64 · seq u64  → 1 byte: finds the batch holding a timestamp
 *   marks    stream id (u32)                 → its removal mark (seams.ts MarkedState), when raised
 *   misc     "nextStreamId"                  → number (ids of streams and basins)
 *            "dataFormat"                    → number (DATA_FORMAT)
 *   tokens   token id (utf8)                 → StoredToken (json: a hash, never the secret)
 *   tokenkeys key id (utf8)                  → token id
 *   metrics  string key                      → metric sums (json numbers; local-metrics.ts)
 *
 * Durability: lmdb's put() resolves at commit, BEFORE the commit is flushed (overlapping
 * sync); every write here therefore also awaits `env.flushed`, which covers all commits made
 * so far. Writes issued in the same event turn share one transaction and one flush (group
 * commit), so many appends in flight cost one fsync.
 *
 * Failures (a full disk, an I/O error) must never leave a gap or reuse a seq num: after a
 * failed write no new write touches the environment until every write already issued has
 * settled; meanwhile writes fail at once with 500 `storage`. And lmdb never meets a full disk
 * (its native writer corrupts its heap when ENOSPC comes and goes): every write is first
 * admitted against space already allocated to the data file (space-reserve.ts), and refused
 * with 507 `storage_full` when the disk cannot give more.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { type Database, open, type RootDatabase, type RootDatabaseOptionsWithPath } from "lmdb";
import { SvcError } from "../../../errors.js";
import { SpaceReserve, type SpaceReserveOptions } from "../space-reserve.js";
import type { BasinMeta, StoredToken, StreamMeta, StreamStateRecord } from "../types.js";

/**
 * The data dir's format, kept in `misc` under "dataFormat". 2: stored batches may carry their
 * records as wire bytes (batch-codec.ts version 2), which a format-1 svc cannot decode. A dir
 * of a newer format than this svc knows is refused at start, with a message, instead of
 * failing later at the first batch it cannot read; an older one (or one from before the key)
 * is marked with this format once opened, since this svc may now write what older ones cannot
 * read. Bump it with any change to stored values that this version could not read back.
 */
export const DATA_FORMAT = 2;

export class LmdbEnv {
  env!: RootDatabase;
  basins!: Database<BasinMeta, Buffer>;
  streams!: Database<StreamMeta, Buffer>;
  tails!: Database<StreamStateRecord, number>;
  batches!: Database<Buffer, Buffer>;
  tsidx!: Database<Buffer, Buffer>;
  marks!: Database<number, number>;
  misc!: Database<number, string>;
  tokens!: Database<StoredToken, Buffer>;
  tokenKeys!: Database<string, string>;
  metrics!: Database<unknown, string>;
  onSync?: (seconds: number) => void;
  /** The first error of a failed write, while writes issued before it are still settling. */
  private failure: unknown;
  private pending = 0;
  /** Resolvers waiting for `pending` to reach 0. */
  private idleWaiters: Array<() => void> = [];
  private readonly reserve: SpaceReserve;
  /** Writes waiting for headroom, and the end of their line (admission is first come, first served). */
  private waiting = 0;
  private line: Promise<void> = Promise.resolve();

  constructor(
    private readonly dir: string,
    reserve: SpaceReserveOptions = {},
  ) {
    this.openEnv();
    this.checkFormat();
    this.migrateStates();
    // lmdb takes a file path, or a directory to hold data.mdb.
    const file = statSync(dir).isDirectory() ? join(dir, "data.mdb") : dir;
    this.reserve = new SpaceReserve(
      file,
      () => {
        const { lastPageNumber, pageSize } = this.env.getStats() as { lastPageNumber: number; pageSize: number };
        return (lastPageNumber + 1) * pageSize;
      },
      reserve,
    );
  }

  private openEnv(): void {
    // The files lmdb creates are the owner's only, whatever the umask or the data dir's mode
    // (lmdb's default is 0664; `permissionsMode` is read by lmdb-js but not in its types).
    const options: RootDatabaseOptionsWithPath & { permissionsMode: number } = {
      path: this.dir,
      maxDbs: 12,
      permissionsMode: 0o600,
    };
    this.env = open(options);
    this.basins = this.env.openDB({ name: "basins", encoding: "json", keyEncoding: "binary" });
    this.streams = this.env.openDB({ name: "streams", encoding: "json", keyEncoding: "binary" });
    this.tails = this.env.openDB({ name: "tails", encoding: "json", keyEncoding: "uint32", useVersions: true });
    this.batches = this.env.openDB({ name: "batches", encoding: "binary", keyEncoding: "binary" });
    this.tsidx = this.env.openDB({ name: "tsidx", encoding: "binary", keyEncoding: "binary" });
    this.marks = this.env.openDB({ name: "marks", encoding: "json", keyEncoding: "uint32" });
    this.misc = this.env.openDB({ name: "misc", encoding: "json" });
    this.tokens = this.env.openDB({ name: "tokens", encoding: "json", keyEncoding: "binary" });
    this.tokenKeys = this.env.openDB({ name: "tokenkeys", encoding: "json" });
    this.metrics = this.env.openDB({ name: "metrics", encoding: "json" });
  }

  private checkFormat(): void {
    const format = this.misc.get("dataFormat") ?? 1;
    if (format > DATA_FORMAT) {
      this.env.close();
      throw new Error(
        `${this.dir} was written by a newer svc (data format ${format}; this svc reads up to ${DATA_FORMAT}): upgrade svc`,
      );
    }
    if (format < DATA_FORMAT) this.misc.putSync("dataFormat", DATA_FORMAT);
  }

  /** Data dirs from before versioned tails kept them unversioned in `states`: copy once. */
  private migrateStates(): void {
    const old = this.env.openDB<StreamStateRecord, number>({ name: "states", encoding: "json", keyEncoding: "uint32" });
    if (old.getKeysCount() === 0) return;
    this.env.transactionSync(() => {
      for (const { key, value } of old.getRange()) this.tails.putSync(key, value, value.nextSeq);
      old.clearSync();
    });
  }

  /**
   * Every write goes through here: refused at once while an earlier failure is settling,
   * admitted against the disk space reserved for lmdb (`cost`: the bytes it may add), counted
   * while pending, and resolved (with what `issue` resolved to) only once flushed to disk.
   */
  write<T>(cost: number, issue: () => Promise<T>, check: (result: T) => void = () => {}): Promise<T> {
    if (this.failure !== undefined) {
      return Promise.reject(
        new SvcError({
          code: "storage",
          status: 500,
          origin: "server",
          retryable: true,
          message: "storage is recovering from a failed write (the server's log says why)",
          cause: this.failure,
        }),
      );
    }
    if (this.waiting === 0 && this.reserve.tryAdmit(cost)) {
      this.reserve.maybeGrow();
      return this.issue(issue, check);
    }
    return this.admitThenIssue(cost, issue, check);
  }

  /** The slow path: wait in line, let issued writes settle, grow the reserve, then issue. */
  private async admitThenIssue<T>(cost: number, issue: () => Promise<T>, check: (result: T) => void): Promise<T> {
    this.waiting++;
    const before = this.line;
    let leave!: () => void;
    this.line = new Promise<void>((res) => {
      leave = res;
    });
    try {
      await before;
      while (!this.reserve.tryAdmit(cost)) {
        await this.idle();
        await this.reserve.refill(cost);
      }
    } catch (e) {
      this.waiting--;
      leave();
      throw e;
    }
    this.waiting--;
    const done = this.issue(issue, check);
    leave();
    return done;
  }

  private issue<T>(issue: () => Promise<T>, check: (result: T) => void): Promise<T> {
    this.pending++;
    const done = (async () => {
      let result: T;
      try {
        result = await issue();
        const t0 = this.onSync ? performance.now() : 0;
        await this.env.flushed;
        if (this.onSync) this.onSync((performance.now() - t0) / 1000);
      } catch (e) {
        this.failure ??= e; // lmdb itself failed: hold new writes until the issued ones settle
        throw e;
      }
      check(result);
      return result;
    })();
    done
      .catch(() => undefined)
      .finally(() => {
        if (--this.pending > 0) return;
        this.failure = undefined;
        // lmdb's writer is idle: the estimates of settled writes may give way to the measured mark.
        if (this.waiting === 0) this.remeasure();
        for (const wake of this.idleWaiters.splice(0)) wake();
      });
    return done;
  }

  private remeasure(): void {
    try {
      this.reserve.remeasureIfShort();
    } catch {
      // closed meanwhile: the next open measures afresh
    }
  }

  /** Resolves when no issued write is in flight (lmdb's writer is idle). */
  private idle(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((res) => this.idleWaiters.push(res));
  }

  async close(): Promise<void> {
    await this.reserve.settled();
    this.reserve.close();
    await this.env.flushed;
    await this.env.close();
  }
}
