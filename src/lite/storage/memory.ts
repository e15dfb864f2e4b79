/**
 * In-memory Storage for `--in-memory` and fast tests. Same contract as lmdb, minus durability:
 * writes "complete" on the next microtask, in order.
 */
import type { StoredToken } from "../auth/token-info.js";
import type { BasinMeta, BatchHead, MetaOp, Storage, StoredBatch, StreamMeta, StreamStateRecord } from "./storage.js";

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export class MemoryStorage implements Storage {
  readonly durable = false;
  private basins = new Map<string, BasinMeta>();
  private streams = new Map<string, Map<string, StreamMeta>>();
  private states = new Map<number, StreamStateRecord>();
  private batches = new Map<number, StoredBatch[]>();
  private nextId = 1;
  private tokens = new Map<string, StoredToken>();
  private tokenKeys = new Map<string, string>();
  private metrics = new Map<string, unknown>();

  getToken(id: string): StoredToken | undefined {
    return this.tokens.get(id);
  }

  getTokenByKey(keyId: string): StoredToken | undefined {
    const id = this.tokenKeys.get(keyId);
    return id === undefined ? undefined : this.tokens.get(id);
  }

  listTokens(prefix: string, after: string, limit: number): StoredToken[] {
    return page([...this.tokens.values()], (t) => t.id, prefix, after, limit);
  }

  getBasin(name: string): BasinMeta | undefined {
    return this.basins.get(name);
  }

  listBasins(prefix: string, after: string, limit: number): BasinMeta[] {
    return page([...this.basins.values()], (b) => b.name, prefix, after, limit);
  }

  getStream(basin: string, name: string): StreamMeta | undefined {
    return this.streams.get(basin)?.get(name);
  }

  listStreams(basin: string, prefix: string, after: string, limit: number): StreamMeta[] {
    return page([...(this.streams.get(basin)?.values() ?? [])], (s) => s.name, prefix, after, limit);
  }

  getState(id: number): StreamStateRecord | undefined {
    const s = this.states.get(id);
    return s && { ...s };
  }

  allocateStreamId(): number {
    return this.nextId++;
  }

  async writeMeta(ops: MetaOp[]): Promise<void> {
    for (const o of ops) {
      switch (o.op) {
        case "putBasin": this.basins.set(o.meta.name, o.meta); break;
        case "deleteBasin": this.basins.delete(o.name); break;
        case "putStream": {
          let m = this.streams.get(o.meta.basin);
          if (!m) this.streams.set(o.meta.basin, (m = new Map()));
          m.set(o.meta.name, o.meta);
          break;
        }
        case "deleteStream": this.streams.get(o.basin)?.delete(o.name); break;
        case "putState": this.states.set(o.id, { ...o.state }); break;
        case "deleteState": this.states.delete(o.id); this.batches.delete(o.id); break;
        case "putToken": this.tokens.set(o.token.id, o.token); this.tokenKeys.set(o.token.keyId, o.token.id); break;
        case "deleteToken": this.tokens.delete(o.id); this.tokenKeys.delete(o.keyId); break;
      }
    }
  }

  async appendBatch(id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void> {
    // The same contract as lmdb: a batch lands only right at the stored tail.
    if ((this.states.get(id)?.nextSeq ?? 0) !== batch.firstSeq) throw new Error(`batch at seq ${batch.firstSeq} not written: the stored tail is elsewhere`);
    let list = this.batches.get(id);
    if (!list) this.batches.set(id, (list = []));
    list.push(batch);
    this.states.set(id, { ...state });
  }

  readBatches(id: number, fromSeq: number, maxBatches: number): StoredBatch[] {
    return this.slice(id, fromSeq, maxBatches);
  }

  private slice(id: number, fromSeq: number, maxBatches: number): StoredBatch[] {
    const list = this.batches.get(id) ?? [];
    // Binary search: the last batch whose firstSeq ≤ fromSeq.
    let lo = 0;
    let hi = list.length - 1;
    let start = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.firstSeq <= fromSeq) { start = mid; lo = mid + 1; } else hi = mid - 1;
    }
    const first = list[start];
    if (first && first.firstSeq + first.records.length <= fromSeq) start++;
    return list.slice(start, start + maxBatches);
  }

  batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]> {
    return Promise.resolve(this.slice(id, fromSeq, maxBatches).map((b) => ({ firstSeq: b.firstSeq, count: b.records.length, arrival: b.arrival })));
  }

  findTimestamp(id: number, timestamp: number): number | undefined {
    for (const b of this.batches.get(id) ?? []) if (b.lastTimestamp >= timestamp) return b.firstSeq;
    return undefined;
  }

  lastBatch(id: number): StoredBatch | undefined {
    const list = this.batches.get(id);
    return list?.[list.length - 1];
  }

  async deleteBatchesBelow(id: number, seq: number, max: number): Promise<number> {
    const list = this.batches.get(id);
    if (!list) return 0;
    let n = 0;
    while (n < max && n < list.length && list[n]!.firstSeq + list[n]!.records.length <= seq) n++;
    list.splice(0, n);
    return n;
  }

  readMetrics(start: string, end: string): [string, unknown][] {
    return [...this.metrics].filter(([k]) => k >= start && k < end).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, structuredClone(v)]);
  }

  async writeMetrics(puts: [string, unknown][], deleteBelow: string): Promise<void> {
    for (const k of [...this.metrics.keys()]) if (k.startsWith("b:") && k < deleteBelow) this.metrics.delete(k);
    for (const [k, v] of puts) this.metrics.set(k, structuredClone(v));
  }

  async close(): Promise<void> {}
}

function page<T>(items: T[], name: (t: T) => string, prefix: string, after: string, limit: number): T[] {
  return items
    .filter((t) => name(t).startsWith(prefix) && byteCompare(name(t), after) > 0)
    .sort((a, b) => byteCompare(name(a), name(b)))
    .slice(0, limit);
}
