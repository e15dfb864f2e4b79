/**
 * Durable Storage on lmdb (one environment in the data dir, six named databases):
 *
 *   basins   name                            → BasinMeta (json)
 *   streams  basin 0x00 stream-name          → StreamMeta (json)   byte-wise order = §2.0 order
 *   states   stream id (u32)                 → StreamStateRecord (json)
 *   batches  id u32 · first seq u64 (BE)     → encoded batch (batch-codec.ts)
 *   tsidx    id u32 · last ts u64 · seq u64  → 1 byte: finds the batch holding a timestamp
 *   misc     "nextStreamId"                  → number
 *
 * Durability: lmdb's put() resolves at commit, BEFORE the commit is flushed (overlapping
 * sync); every write here therefore also awaits `env.flushed`, which covers all commits made
 * so far. Writes issued in the same event turn share one transaction and one flush (group
 * commit), so many appends in flight cost one fsync.
 */
import { open, type Database, type RootDatabase } from "lmdb";
import type { BasinMeta, MetaOp, Storage, StoredBatch, StreamMeta, StreamStateRecord } from "./storage.js";
import { batchHeader, decodeBatch, encodeBatch } from "./batch-codec.js";

const ONE = Buffer.from([1]);
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

export class LmdbStorage implements Storage {
  readonly durable = true;
  private env: RootDatabase;
  private basins: Database<BasinMeta, Buffer>;
  private streams: Database<StreamMeta, Buffer>;
  private states: Database<StreamStateRecord, number>;
  private batches: Database<Buffer, Buffer>;
  private tsidx: Database<Buffer, Buffer>;
  private misc: Database<number, string>;
  private nextId: number;

  constructor(dir: string) {
    this.env = open({ path: dir, maxDbs: 8 });
    this.basins = this.env.openDB({ name: "basins", encoding: "json", keyEncoding: "binary" });
    this.streams = this.env.openDB({ name: "streams", encoding: "json", keyEncoding: "binary" });
    this.states = this.env.openDB({ name: "states", encoding: "json", keyEncoding: "uint32" });
    this.batches = this.env.openDB({ name: "batches", encoding: "binary", keyEncoding: "binary" });
    this.tsidx = this.env.openDB({ name: "tsidx", encoding: "binary", keyEncoding: "binary" });
    this.misc = this.env.openDB({ name: "misc", encoding: "json" });
    this.nextId = this.misc.get("nextStreamId") ?? 1;
  }

  private async durableAfter(last: Promise<unknown> | undefined): Promise<void> {
    if (last) await last;
    await this.env.flushed;
  }

  getBasin(name: string): BasinMeta | undefined {
    return this.basins.get(Buffer.from(name, "utf8"));
  }

  listBasins(prefix: string, after: string, limit: number): BasinMeta[] {
    const out: BasinMeta[] = [];
    for (const { value } of this.basins.getRange({ start: listStart(Buffer.alloc(0), prefix, after) })) {
      if (!value.name.startsWith(prefix) || out.length >= limit) break;
      out.push(value);
    }
    return out;
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
    return this.states.get(id);
  }

  allocateStreamId(): number {
    return this.nextId++;
  }

  writeMeta(ops: MetaOp[]): Promise<void> {
    // All puts are issued in one synchronous block: one transaction.
    let last: Promise<unknown> | undefined;
    for (const o of ops) {
      switch (o.op) {
        case "putBasin": last = this.basins.put(Buffer.from(o.meta.name, "utf8"), o.meta); break;
        case "deleteBasin": last = this.basins.remove(Buffer.from(o.name, "utf8")); break;
        case "putStream":
          last = this.streams.put(streamKey(o.meta.basin, o.meta.name), o.meta);
          last = this.misc.put("nextStreamId", this.nextId);
          break;
        case "deleteStream": last = this.streams.remove(streamKey(o.basin, o.name)); break;
        case "putState": last = this.states.put(o.id, o.state); break;
        case "deleteState": last = this.states.remove(o.id); break;
      }
    }
    return this.durableAfter(last);
  }

  appendBatch(id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void> {
    this.batches.put(batchKey(id, batch.firstSeq), encodeBatch(batch));
    this.tsidx.put(tsKey(id, batch.lastTimestamp, batch.firstSeq), ONE);
    return this.durableAfter(this.states.put(id, state));
  }

  readBatches(id: number, fromSeq: number, maxBatches: number): StoredBatch[] {
    let start = fromSeq;
    for (const { key, value } of this.batches.getRange({ start: batchKey(id, fromSeq), end: idKey(id), reverse: true, limit: 1 })) {
      const first = readU64(key, 4);
      if (first + batchHeader(value).count > fromSeq) start = first;
    }
    const out: StoredBatch[] = [];
    for (const { key, value } of this.batches.getRange({ start: batchKey(id, start), end: idKey(id + 1), limit: maxBatches })) {
      out.push(decodeBatch(readU64(key, 4), value));
    }
    return out;
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
    let last: Promise<unknown> | undefined;
    for (const { key, value } of this.batches.getRange({ start: batchKey(id, 0), end: batchKey(id, Math.min(seq, MAX_SEQ)), limit: max })) {
      const first = readU64(key, 4);
      const head = batchHeader(value);
      if (first + head.count > seq) break;
      this.batches.remove(key);
      last = this.tsidx.remove(tsKey(id, head.lastTimestamp, first));
      n++;
    }
    // Removal needs no flush before anyone is told: nothing is acknowledged on it, and a lost
    // removal is redone by the next sweep.
    if (last) await last;
    return n;
  }

  async close(): Promise<void> {
    await this.env.flushed;
    await this.env.close();
  }
}
