/**
 * The in-memory backend for `--in-memory` and fast tests: the lmdb backend's contract minus
 * durability. Writes "complete" on the next microtask, in order.
 */

import { meteredBatchSize } from "../../rules/records.js";
import { applyChange, type CatalogTables } from "./catalog-rules.js";
import { type KvWriter, LocalMetrics, type MetricsKv } from "./local-metrics.js";
import type {
  CatalogChange,
  LocalBackend,
  LocalCatalog,
  LocalLog,
  MetricsStore,
  Removed,
  StreamRevision,
} from "./seams.js";
import type { BasinMeta, BatchHead, StoredBatch, StoredToken, StreamMeta, StreamStateRecord } from "./types.js";

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function page<T>(items: Iterable<T>, name: (t: T) => string, prefix: string, after: string, limit: number): T[] {
  return [...items]
    .filter((t) => name(t).startsWith(prefix) && byteCompare(name(t), after) > 0)
    .sort((a, b) => byteCompare(name(a), name(b)))
    .slice(0, limit);
}

class MemoryCatalog implements LocalCatalog {
  private basins = new Map<string, BasinMeta>();
  private streams = new Map<string, Map<string, StreamMeta>>();
  private tokens = new Map<string, StoredToken>();
  private tokenKeys = new Map<string, string>();
  private nextId = 1;

  constructor(private readonly log: MemoryLog) {
    log.stream = (basin, name) => this.getStream(basin, name);
  }

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
    return applyChange(this.tables, c);
  }

  private putStream(meta: StreamMeta): void {
    let m = this.streams.get(meta.basin);
    if (!m) this.streams.set(meta.basin, (m = new Map()));
    m.set(meta.name, meta);
  }

  /** The tables as the rules see them. */
  private readonly tables: CatalogTables = {
    basin: (name) => this.basins.get(name),
    putBasin: (meta) => void this.basins.set(meta.name, meta),
    dropBasin: (name) => {
      this.basins.delete(name);
      this.streams.delete(name);
    },
    stream: (basin, name) => this.getStream(basin, name),
    streamsOf: (basin, limit) => [...(this.streams.get(basin)?.values() ?? [])].slice(0, limit),
    putStream: (meta) => this.putStream(meta),
    dropStream: (meta) => {
      this.streams.get(meta.basin)?.delete(meta.name);
      this.log.states.delete(meta.id);
      this.log.batches.delete(meta.id);
      this.log.marks.delete(meta.id);
    },
    tail: (id) => this.log.states.get(id),
    putTail: (id, state) => void this.log.states.set(id, state),
    token: (id) => this.tokens.get(id),
    putToken: (token) => {
      this.tokens.set(token.id, token);
      this.tokenKeys.set(token.keyId, token.id);
    },
    dropToken: (id, keyId) => {
      this.tokens.delete(id);
      this.tokenKeys.delete(keyId);
    },
    idTaken: () => {},
  };
}

class MemoryLog implements LocalLog {
  /** The catalog's stream of that name (set by the catalog), for removals conditional on its revision. */
  stream: (basin: string, name: string) => StreamMeta | undefined = () => undefined;
  readonly states = new Map<number, StreamStateRecord>();
  readonly batches = new Map<number, StoredBatch[]>();
  /** Removal marks (deleteBatchesBelow). */
  readonly marks = new Map<number, number>();

  getState(id: number): StreamStateRecord | undefined {
    const s = this.states.get(id);
    return s && { ...s };
  }

  removedBelow(id: number): number {
    return this.marks.get(id) ?? 0;
  }

  async appendBatch(id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void> {
    // The same contract as lmdb: a batch lands only right at the stored tail.
    if ((this.states.get(id)?.nextSeq ?? 0) !== batch.firstSeq)
      throw new Error(`batch at seq ${batch.firstSeq} not written: the stored tail is elsewhere`);
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
      if (list[mid]!.firstSeq <= fromSeq) {
        start = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const first = list[start];
    if (first && first.firstSeq + first.records.length <= fromSeq) start++;
    return list.slice(start, start + maxBatches);
  }

  batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]> {
    return Promise.resolve(
      this.slice(id, fromSeq, maxBatches).map((b) => ({
        firstSeq: b.firstSeq,
        count: b.records.length,
        arrival: b.arrival,
      })),
    );
  }

  findTimestamp(id: number, timestamp: number): number | undefined {
    for (const b of this.batches.get(id) ?? []) if (b.lastTimestamp >= timestamp) return b.firstSeq;
    return undefined;
  }

  lastBatch(id: number): StoredBatch | undefined {
    const list = this.batches.get(id);
    return list?.[list.length - 1];
  }

  async deleteBatchesBelow(id: number, seq: number, max: number, ifRev?: StreamRevision): Promise<Removed> {
    const list = this.batches.get(id);
    const meta = ifRev && this.stream(ifRev.basin, ifRev.name);
    if (!list || (ifRev && (meta?.id !== id || meta.deletedAt !== null || (meta.rev ?? 0) !== ifRev.rev)))
      return { batches: 0, metered: 0 };
    if (seq > this.removedBelow(id)) this.marks.set(id, seq);
    let n = 0;
    while (n < max && n < list.length && list[n]!.firstSeq + list[n]!.records.length <= seq) n++;
    const gone = list.splice(0, n);
    return { batches: n, metered: gone.reduce((m, b) => m + meteredBatchSize(b.records), 0) };
  }
}

/** Metric sums in a map; a write applies at once, atomically (nothing else runs meanwhile). */
class MemoryKv implements MetricsKv {
  private readonly map = new Map<string, number>();
  private readonly writer: KvWriter = {
    get: (k) => this.map.get(k),
    put: (k, v) => void this.map.set(k, v),
    remove: (k) => void this.map.delete(k),
  };

  get(key: string): number | undefined {
    return this.map.get(key);
  }

  range(start: string, end: string): [string, number][] {
    return [...this.map]
      .filter(([k]) => byteCompare(k, start) >= 0 && byteCompare(k, end) < 0)
      .sort(([a], [b]) => byteCompare(a, b));
  }

  async write(_size: number, body: (w: KvWriter) => void): Promise<void> {
    body(this.writer);
  }
}

export class MemoryBackend implements LocalBackend {
  readonly kind = "local";
  readonly durable = false;
  readonly log = new MemoryLog();
  readonly catalog: LocalCatalog = new MemoryCatalog(this.log);
  readonly metrics: MetricsStore<"local"> = new LocalMetrics(new MemoryKv());
  onSync?: (seconds: number) => void;

  async settled(): Promise<void> {}

  async close(): Promise<void> {}
}
