/**
 * The in-memory backend for `--in-memory` and fast tests: the lmdb backend's contract minus
 * durability. Writes "complete" on the next microtask, in order.
 */
import type { StoredToken } from "../auth/token-info.js";
import type { Catalog, CatalogChange, LocalBackend, LocalLog, MetricsStore } from "./seams.js";
import { LocalMetrics, type KvWriter, type MetricsKv } from "./local-metrics.js";
import type { BasinMeta, BatchHead, StoredBatch, StreamMeta, StreamStateRecord } from "./types.js";

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function page<T>(items: Iterable<T>, name: (t: T) => string, prefix: string, after: string, limit: number): T[] {
  return [...items]
    .filter((t) => name(t).startsWith(prefix) && byteCompare(name(t), after) > 0)
    .sort((a, b) => byteCompare(name(a), name(b)))
    .slice(0, limit);
}

class MemoryCatalog implements Catalog {
  private basins = new Map<string, BasinMeta>();
  private streams = new Map<string, Map<string, StreamMeta>>();
  private tokens = new Map<string, StoredToken>();
  private tokenKeys = new Map<string, string>();
  private nextId = 1;

  constructor(private readonly log: MemoryLog) {}

  getBasin(name: string): BasinMeta | undefined {
    return this.basins.get(name);
  }

  listBasins(prefix: string, after: string, limit: number): BasinMeta[] {
    return page(this.basins.values(), (b) => b.name, prefix, after, limit);
  }

  getStream(basin: string, name: string): StreamMeta | undefined {
    return this.streams.get(basin)?.get(name);
  }

  listStreams(basin: string, prefix: string, after: string, limit: number): StreamMeta[] {
    return page(this.streams.get(basin)?.values() ?? [], (s) => s.name, prefix, after, limit);
  }

  getToken(id: string): StoredToken | undefined {
    return this.tokens.get(id);
  }

  getTokenByKey(keyId: string): StoredToken | undefined {
    const id = this.tokenKeys.get(keyId);
    return id === undefined ? undefined : this.tokens.get(id);
  }

  listTokens(prefix: string, after: string, limit: number): StoredToken[] {
    return page(this.tokens.values(), (t) => t.id, prefix, after, limit);
  }

  newId(): number {
    return this.nextId++;
  }

  async change(c: CatalogChange): Promise<boolean> {
    return this.apply(c);
  }

  private putStream(meta: StreamMeta): void {
    let m = this.streams.get(meta.basin);
    if (!m) this.streams.set(meta.basin, (m = new Map()));
    m.set(meta.name, meta);
  }

  private apply(c: CatalogChange): boolean {
    switch (c.op) {
      case "createBasin": case "updateBasin": case "deleteBasin": case "removeBasin": return this.basinChange(c);
      case "createStream": case "updateStream": case "deleteStream": case "removeStream": return this.streamChange(c);
      default: return this.tokenChange(c);
    }
  }

  private basinChange(c: Extract<CatalogChange, { op: "createBasin" | "updateBasin" | "deleteBasin" | "removeBasin" }>): boolean {
    switch (c.op) {
      case "createBasin":
        if (this.basins.has(c.meta.name)) return false;
        this.basins.set(c.meta.name, { ...c.meta, rev: 0 });
        return true;
      case "updateBasin": {
        const cur = this.basins.get(c.meta.name);
        if (!cur || (cur.id ?? 0) !== (c.meta.id ?? 0) || (cur.rev ?? 0) !== c.rev || cur.deletedAt !== null) return false;
        this.basins.set(c.meta.name, { ...c.meta, rev: c.rev + 1 });
        return true;
      }
      case "deleteBasin": {
        const cur = this.basins.get(c.name);
        if (!cur || (cur.id ?? 0) !== c.id || cur.deletedAt !== null) return false;
        this.basins.set(c.name, { ...cur, deletedAt: c.at, rev: (cur.rev ?? 0) + 1 });
        for (const s of this.streams.get(c.name)?.values() ?? []) {
          if (s.deletedAt === null) this.putStream({ ...s, deletedAt: c.at, rev: (s.rev ?? 0) + 1 });
        }
        return true;
      }
      case "removeBasin": {
        const cur = this.basins.get(c.name);
        if (!cur || (cur.id ?? 0) !== c.id || cur.deletedAt === null || (this.streams.get(c.name)?.size ?? 0) > 0) return false;
        this.basins.delete(c.name);
        this.streams.delete(c.name);
        return true;
      }
    }
  }

  private streamChange(c: Extract<CatalogChange, { op: "createStream" | "updateStream" | "deleteStream" | "removeStream" }>): boolean {
    switch (c.op) {
      case "createStream": {
        const b = this.basins.get(c.meta.basin);
        if (!b || b.deletedAt !== null || this.getStream(c.meta.basin, c.meta.name)) return false;
        this.putStream({ ...c.meta, rev: 0 });
        this.log.states.set(c.meta.id, { ...c.state });
        return true;
      }
      case "updateStream": {
        const cur = this.getStream(c.meta.basin, c.meta.name);
        if (!cur || cur.id !== c.meta.id || (cur.rev ?? 0) !== c.rev || cur.deletedAt !== null) return false;
        this.putStream({ ...c.meta, rev: c.rev + 1 });
        return true;
      }
      case "deleteStream": {
        const cur = this.getStream(c.basin, c.name);
        if (!cur || cur.id !== c.id || cur.deletedAt !== null) return false;
        const state = this.log.states.get(c.id);
        if (c.ifTail && (!state || state.nextSeq !== c.ifTail.nextSeq || state.lastArrival !== c.ifTail.lastArrival)) return false;
        this.putStream({ ...cur, deletedAt: c.at, rev: (cur.rev ?? 0) + 1 });
        return true;
      }
      case "removeStream": {
        const cur = this.getStream(c.basin, c.name);
        if (!cur || cur.id !== c.id) return false;
        this.streams.get(c.basin)?.delete(c.name);
        this.log.states.delete(c.id);
        this.log.batches.delete(c.id);
        return true;
      }
    }
  }

  private tokenChange(c: Extract<CatalogChange, { op: "putToken" | "deleteToken" }>): boolean {
    switch (c.op) {
      case "putToken":
        if (this.tokens.has(c.token.id)) return false;
        this.tokens.set(c.token.id, c.token);
        this.tokenKeys.set(c.token.keyId, c.token.id);
        return true;
      case "deleteToken": {
        const cur = this.tokens.get(c.id);
        if (!cur || cur.keyId !== c.keyId) return false;
        this.tokens.delete(c.id);
        this.tokenKeys.delete(c.keyId);
        return true;
      }
    }
  }
}

class MemoryLog implements LocalLog {
  readonly states = new Map<number, StreamStateRecord>();
  readonly batches = new Map<number, StoredBatch[]>();

  getState(id: number): StreamStateRecord | undefined {
    const s = this.states.get(id);
    return s && { ...s };
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
}

/** Metric sums in a map; a write applies at once, atomically (nothing else runs meanwhile). */
class MemoryKv implements MetricsKv {
  private readonly map = new Map<string, number>();
  private readonly writer: KvWriter = { get: (k) => this.map.get(k), put: (k, v) => void this.map.set(k, v), remove: (k) => void this.map.delete(k) };

  get(key: string): number | undefined {
    return this.map.get(key);
  }

  range(start: string, end: string): [string, number][] {
    return [...this.map].filter(([k]) => byteCompare(k, start) >= 0 && byteCompare(k, end) < 0).sort(([a], [b]) => byteCompare(a, b));
  }

  async write(_size: number, body: (w: KvWriter) => void): Promise<void> {
    body(this.writer);
  }
}

export class MemoryBackend implements LocalBackend {
  readonly kind = "local";
  readonly durable = false;
  readonly log = new MemoryLog();
  readonly catalog: Catalog = new MemoryCatalog(this.log);
  readonly metrics: MetricsStore = new LocalMetrics(new MemoryKv());
  onSync?: (seconds: number) => void;

  async close(): Promise<void> {}
}
