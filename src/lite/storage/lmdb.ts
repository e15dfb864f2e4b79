/**
 * Durable Storage on lmdb (one environment in the data dir, six named databases):
 *
 *   basins   name                            → BasinMeta (json)
 *   streams  basin 0x00 stream-name          → StreamMeta (json)   byte-wise order = §2.0 order
 *   tails    stream id (u32)                 → StreamStateRecord (json), VERSION = its nextSeq
 *   batches  id u32 · first seq u64 (BE)     → encoded batch (batch-codec.ts)
 *   tsidx    id u32 · last ts u64 · seq u64  → 1 byte: finds the batch holding a timestamp
 *   misc     "nextStreamId"                  → number
 *            "dataFormat"                    → number (DATA_FORMAT)
 *   tokens   token id (utf8)                 → StoredToken (json: a hash, never the secret)
 *   tokenkeys key id (utf8)                  → token id
 *   metrics  string key                      → metric bucket / stored bytes (json; issue 15)
 *
 * Durability: lmdb's put() resolves at commit, BEFORE the commit is flushed (overlapping
 * sync); every write here therefore also awaits `env.flushed`, which covers all commits made
 * so far. Writes issued in the same event turn share one transaction and one flush (group
 * commit), so many appends in flight cost one fsync.
 *
 * Failures (a full disk, an I/O error) must never leave a gap or reuse a seq num:
 *   - a batch is written only IF the stored tail's version (its nextSeq) equals the batch's
 *     first seq num, checked atomically in the write transaction (lmdb `ifVersion`). When a
 *     commit fails, every batch sequenced behind it is skipped instead of landing beyond a
 *     hole, and the stream reloads from the durable tail;
 *   - after a failed write no new write touches the environment until every write already
 *     issued has settled; meanwhile writes fail at once with 500 `storage`;
 *   - lmdb never meets a full disk (its native writer corrupts its heap when ENOSPC comes and
 *     goes): every write is first admitted against space this module has already allocated
 *     to the data file (space-reserve.ts), and refused with 507 `storage_full` when the disk
 *     cannot give more.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { open, type Database, type RootDatabase, type RootDatabaseOptionsWithPath } from "lmdb";
import { SvcError } from "../../errors.js";
import type { BasinMeta, BatchHead, MetaOp, Storage, StoredBatch, StreamMeta, StreamStateRecord } from "./storage.js";
import { batchHeader, decodeBatch, encodeBatch } from "./batch-codec.js";
import { SpaceReserve, WRITE_OVERHEAD, type SpaceReserveOptions } from "./space-reserve.js";
import type { StoredToken } from "../auth/token-info.js";

const ONE = Buffer.from([1]);

/**
 * The data dir's format, kept in `misc` under "dataFormat". 2: stored batches may carry their
 * records as wire bytes (batch-codec.ts version 2), which a format-1 svc cannot decode. A dir
 * of a newer format than this svc knows is refused at start, with a message, instead of
 * failing later at the first batch it cannot read; an older one (or one from before the key)
 * is marked with this format once opened, since this svc may now write what older ones cannot
 * read. Bump it with any change to stored values that this version could not read back.
 */
export const DATA_FORMAT = 2;

const MAX_SEQ = Number.MAX_SAFE_INTEGER;

function u64(buf: Buffer, at: number, n: number): void {
  buf.writeUInt32BE(Math.floor(n / 0x1_0000_0000), at);
  buf.writeUInt32BE(n >>> 0, at + 4);
}

function readU64(buf: Buffer, at: number): number {
  return buf.readUInt32BE(at) * 0x1_0000_0000 + buf.readUInt32BE(at + 4);
}

function idKey(id: number): Buffer {
  const k = Buffer.allocUnsafe(4);
  k.writeUInt32BE(id, 0);
  return k;
}

function batchKey(id: number, seq: number): Buffer {
  const k = Buffer.allocUnsafe(12);
  k.writeUInt32BE(id, 0);
  u64(k, 4, seq);
  return k;
}

function tsKey(id: number, ts: number, seq: number): Buffer {
  const k = Buffer.allocUnsafe(20);
  k.writeUInt32BE(id, 0);
  u64(k, 4, ts);
  u64(k, 12, seq);
  return k;
}

function streamKey(basin: string, name: string): Buffer {
  return Buffer.concat([Buffer.from(basin, "utf8"), Buffer.from([0]), Buffer.from(name, "utf8")]);
}

/** The smallest key of a listing: max(prefix, after + 0x00), so `after` itself is excluded. */
function listStart(base: Buffer, prefix: string, after: string): Buffer {
  const p = Buffer.from(prefix, "utf8");
  const a = after === "" ? Buffer.alloc(0) : Buffer.concat([Buffer.from(after, "utf8"), Buffer.from([0])]);
  return Buffer.concat([base, Buffer.compare(p, a) >= 0 ? p : a]);
}

/** Values of a database keyed by their UTF-8 name: names > `after` starting with `prefix`. */
function listByName<V>(db: Database<V, Buffer>, name: (v: V) => string, prefix: string, after: string, limit: number): V[] {
  const out: V[] = [];
  for (const { value } of db.getRange({ start: listStart(Buffer.alloc(0), prefix, after) })) {
    if (!name(value).startsWith(prefix) || out.length >= limit) break;
    out.push(value);
  }
  return out;
}

export class LmdbStorage implements Storage {
  readonly durable = true;
  private env!: RootDatabase;
  private basins!: Database<BasinMeta, Buffer>;
  private streams!: Database<StreamMeta, Buffer>;
  private tails!: Database<StreamStateRecord, number>;
  private batches!: Database<Buffer, Buffer>;
  private tsidx!: Database<Buffer, Buffer>;
  private misc!: Database<number, string>;
  private tokens!: Database<StoredToken, Buffer>;
  private tokenKeys!: Database<string, string>;
  private metrics!: Database<unknown, string>;
  onSync?: (seconds: number) => void;
  private nextId: number;
  /** The first error of a failed write, while writes issued before it are still settling. */
  private failure: unknown;
  private pending = 0;
  /** Resolvers waiting for `pending` to reach 0. */
  private idleWaiters: Array<() => void> = [];
  private readonly reserve: SpaceReserve;
  /** Writes waiting for headroom, and the end of their line (admission is first come, first served). */
  private waiting = 0;
  private line: Promise<void> = Promise.resolve();

  constructor(private readonly dir: string, reserve: SpaceReserveOptions = {}) {
    this.openEnv();
    this.checkFormat();
    this.nextId = this.misc.get("nextStreamId") ?? 1;
    this.migrateStates();
    // lmdb takes a file path, or a directory to hold data.mdb.
    const file = statSync(dir).isDirectory() ? join(dir, "data.mdb") : dir;
    this.reserve = new SpaceReserve(file, () => {
      const { lastPageNumber, pageSize } = this.env.getStats() as { lastPageNumber: number; pageSize: number };
      return (lastPageNumber + 1) * pageSize;
    }, reserve);
  }

  private openEnv(): void {
    // The files lmdb creates are the owner's only, whatever the umask or the data dir's mode
    // (lmdb's default is 0664; `permissionsMode` is read by lmdb-js but not in its types).
    const options: RootDatabaseOptionsWithPath & { permissionsMode: number } = { path: this.dir, maxDbs: 12, permissionsMode: 0o600 };
    this.env = open(options);
    this.basins = this.env.openDB({ name: "basins", encoding: "json", keyEncoding: "binary" });
    this.streams = this.env.openDB({ name: "streams", encoding: "json", keyEncoding: "binary" });
    this.tails = this.env.openDB({ name: "tails", encoding: "json", keyEncoding: "uint32", useVersions: true });
    this.batches = this.env.openDB({ name: "batches", encoding: "binary", keyEncoding: "binary" });
    this.tsidx = this.env.openDB({ name: "tsidx", encoding: "binary", keyEncoding: "binary" });
    this.misc = this.env.openDB({ name: "misc", encoding: "json" });
    this.tokens = this.env.openDB({ name: "tokens", encoding: "json", keyEncoding: "binary" });
    this.tokenKeys = this.env.openDB({ name: "tokenkeys", encoding: "json" });
    this.metrics = this.env.openDB({ name: "metrics", encoding: "json" });
  }

  private checkFormat(): void {
    const format = this.misc.get("dataFormat") ?? 1;
    if (format > DATA_FORMAT) {
      this.env.close();
      throw new Error(`${this.dir} was written by a newer svc (data format ${format}; this svc reads up to ${DATA_FORMAT}): upgrade svc`);
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
   * while pending, and resolved only once flushed to disk.
   */
  private write(cost: number, issue: () => Promise<unknown>, check: (result: unknown) => void = () => {}): Promise<void> {
    if (this.failure !== undefined) {
      return Promise.reject(new SvcError({ code: "storage", status: 500, origin: "server", retryable: true, message: `storage is recovering from a failed write: ${(this.failure as Error)?.message ?? this.failure}` }));
    }
    if (this.waiting === 0 && this.reserve.tryAdmit(cost)) {
      this.reserve.maybeGrow();
      return this.issue(issue, check);
    }
    return this.admitThenIssue(cost, issue, check);
  }

  /** The slow path: wait in line, let issued writes settle, grow the reserve, then issue. */
  private async admitThenIssue(cost: number, issue: () => Promise<unknown>, check: (result: unknown) => void): Promise<void> {
    this.waiting++;
    const before = this.line;
    let leave!: () => void;
    this.line = new Promise<void>((res) => { leave = res; });
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

  private issue(issue: () => Promise<unknown>, check: (result: unknown) => void): Promise<void> {
    this.pending++;
    const done = (async () => {
      let result: unknown;
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
    })();
    done.catch(() => undefined).finally(() => {
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

  getBasin(name: string): BasinMeta | undefined {
    return this.basins.get(Buffer.from(name, "utf8"));
  }

  listBasins(prefix: string, after: string, limit: number): BasinMeta[] {
    return listByName(this.basins, (b) => b.name, prefix, after, limit);
  }

  getStream(basin: string, name: string): StreamMeta | undefined {
    return this.streams.get(streamKey(basin, name));
  }

  listStreams(basin: string, prefix: string, after: string, limit: number): StreamMeta[] {
    const base = streamKey(basin, "");
    const out: StreamMeta[] = [];
    const end = Buffer.concat([Buffer.from(basin, "utf8"), Buffer.from([1])]);
    for (const { value } of this.streams.getRange({ start: listStart(base, prefix, after), end })) {
      if (!value.name.startsWith(prefix) || out.length >= limit) break;
      out.push(value);
    }
    return out;
  }

  getState(id: number): StreamStateRecord | undefined {
    return this.tails.get(id);
  }

  getToken(id: string): StoredToken | undefined {
    return this.tokens.get(Buffer.from(id, "utf8"));
  }

  getTokenByKey(keyId: string): StoredToken | undefined {
    const id = this.tokenKeys.get(keyId);
    return id === undefined ? undefined : this.getToken(id);
  }

  listTokens(prefix: string, after: string, limit: number): StoredToken[] {
    return listByName(this.tokens, (t) => t.id, prefix, after, limit);
  }

  allocateStreamId(): number {
    return this.nextId++;
  }

  writeMeta(ops: MetaOp[]): Promise<void> {
    // All puts are issued in one synchronous block: one transaction.
    return this.write(WRITE_OVERHEAD + ops.length * 4096, () => this.env.batch(() => this.applyMeta(ops)));
  }

  private applyMeta(ops: MetaOp[]): void {
    for (const o of ops) {
      switch (o.op) {
        case "putBasin": void this.basins.put(Buffer.from(o.meta.name, "utf8"), o.meta); break;
        case "deleteBasin": void this.basins.remove(Buffer.from(o.name, "utf8")); break;
        case "putStream":
          void this.streams.put(streamKey(o.meta.basin, o.meta.name), o.meta);
          void this.misc.put("nextStreamId", this.nextId);
          break;
        case "deleteStream": void this.streams.remove(streamKey(o.basin, o.name)); break;
        case "putState": void this.tails.put(o.id, o.state, o.state.nextSeq); break;
        case "deleteState": void this.tails.remove(o.id); break;
        case "putToken":
          void this.tokens.put(Buffer.from(o.token.id, "utf8"), o.token);
          void this.tokenKeys.put(o.token.keyId, o.token.id);
          break;
        case "deleteToken":
          void this.tokens.remove(Buffer.from(o.id, "utf8"));
          void this.tokenKeys.remove(o.keyId);
          break;
      }
    }
  }

  appendBatch(id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void> {
    const value = encodeBatch(batch);
    const write = (): Promise<boolean> => this.tails.ifVersion(id, batch.firstSeq, () => {
      this.batches.put(batchKey(id, batch.firstSeq), value);
      this.tsidx.put(tsKey(id, batch.lastTimestamp, batch.firstSeq), ONE);
      this.tails.put(id, state, state.nextSeq);
    });
    return this.write(WRITE_OVERHEAD + Math.ceil(value.length * 1.25), write, (written) => {
      if (written !== true) throw new SvcError({ code: "storage", status: 500, origin: "server", retryable: true, message: `batch at seq ${batch.firstSeq} not written: the stored tail is elsewhere (an earlier write failed)` });
    });
  }

  readBatches(id: number, fromSeq: number, maxBatches: number): StoredBatch[] {
    const out: StoredBatch[] = [];
    const held = this.holding(id, fromSeq);
    if (held) out.push(decodeBatch(held.first, this.batches.getBinary(held.key)!));
    if (out.length >= maxBatches) return out;
    for (const { key, value } of this.batches.getRange({ start: batchKey(id, fromSeq), end: idKey(id + 1), limit: maxBatches - out.length })) {
      out.push(decodeBatch(readU64(key, 4), value));
    }
    return out;
  }

  /** readBatches without the values: keys and headers only, nothing copied. */
  batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]> {
    const out: BatchHead[] = [];
    const held = this.holding(id, fromSeq);
    if (held) out.push({ firstSeq: held.first, count: held.head.count, arrival: held.head.arrival });
    if (out.length < maxBatches) {
      for (const key of this.batches.getKeys({ start: batchKey(id, fromSeq), end: idKey(id + 1), limit: maxBatches - out.length })) {
        const head = this.headerAt(key);
        out.push({ firstSeq: readU64(key, 4), count: head.count, arrival: head.arrival });
      }
    }
    return Promise.resolve(out);
  }

  /**
   * The batch that starts before `fromSeq` and holds it, if any, found by key and header alone
   * (a value is a copy of up to a MiB, and a sequential catch-up starts every read exactly at a
   * batch: issue 13). A batch starting at `fromSeq` is left to the forward scan.
   */
  private holding(id: number, fromSeq: number): { key: Buffer; first: number; head: ReturnType<typeof batchHeader> } | undefined {
    for (const key of this.batches.getKeys({ start: batchKey(id, fromSeq), end: idKey(id), reverse: true, limit: 1 })) {
      const first = readU64(key, 4);
      if (first === fromSeq) return undefined;
      const head = this.headerAt(key);
      return first + head.count > fromSeq ? { key, first, head } : undefined;
    }
    return undefined;
  }

  /** The header of the batch stored under `key`, read without copying its value. */
  private headerAt(key: Buffer): ReturnType<typeof batchHeader> {
    const value = this.batches.getBinaryFast(key);
    if (value === undefined) throw new Error("stored batch vanished while being read");
    return batchHeader(value);
  }

  findTimestamp(id: number, timestamp: number): number | undefined {
    for (const { key } of this.tsidx.getRange({ start: tsKey(id, timestamp, 0), end: idKey(id + 1), limit: 1 })) {
      return readU64(key, 12);
    }
    return undefined;
  }

  lastBatch(id: number): StoredBatch | undefined {
    for (const { key, value } of this.batches.getRange({ start: batchKey(id, MAX_SEQ), end: idKey(id), reverse: true, limit: 1 })) {
      return decodeBatch(readU64(key, 4), value);
    }
    return undefined;
  }

  async deleteBatchesBelow(id: number, seq: number, max: number): Promise<number> {
    let n = 0;
    for (const key of this.batches.getKeys({ start: batchKey(id, 0), end: batchKey(id, Math.min(seq, MAX_SEQ)), limit: max })) {
      if (readU64(key, 4) + this.headerAt(key).count > seq) break;
      n++;
    }
    if (n === 0) return 0;
    // Removal needs no flush before anyone is told: nothing is acknowledged on it, and a lost
    // removal is redone by the next sweep. It still goes through the write gate.
    await this.write(WRITE_OVERHEAD, () => this.env.batch(() => {
      for (const key of this.batches.getKeys({ start: batchKey(id, 0), end: batchKey(id, Math.min(seq, MAX_SEQ)), limit: n })) {
        this.tsidx.remove(tsKey(id, this.headerAt(key).lastTimestamp, readU64(key, 4)));
        this.batches.remove(key);
      }
    }));
    return n;
  }

  readMetrics(start: string, end: string): [string, unknown][] {
    return [...this.metrics.getRange({ start, end })].map(({ key, value }) => [key, value]);
  }

  writeMetrics(puts: [string, unknown][], deleteBelow: string): Promise<void> {
    return this.write(WRITE_OVERHEAD + puts.length * 512, () => this.env.batch(() => {
      for (const { key } of this.metrics.getRange({ start: "b:", end: deleteBelow })) void this.metrics.remove(key);
      for (const [key, value] of puts) void this.metrics.put(key, value);
    }));
  }

  async close(): Promise<void> {
    await this.reserve.settled();
    this.reserve.close();
    await this.env.flushed;
    await this.env.close();
  }
}
