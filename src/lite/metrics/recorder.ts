/**
 * The metrics recorder of svc lite (issue 15): owns the per-stream meters, the current
 * minute's bucket and the stored bytes of every stream, and makes them durable.
 *
 * - Hot path: appends and reads bump their stream's meter (meter.ts); requests bump the
 *   bucket's operation counts once each.
 * - `fold()` moves the meters into the bucket of the current minute. It runs on a timer that
 *   fires at each minute boundary (and at least every `flushMs`), before every query, and on
 *   close; each run then writes the buckets that changed. A crash loses at most what was
 *   counted since the last write: never more than the current minute.
 * - Minute buckets older than `keepDays` are deleted as new ones are written.
 */
import type { LocalMetricsStore } from "../storage/seams.js";
import { basinBucket, bucketKey, emptyBucket, minuteOf, STORAGE_KEY, type Bucket } from "./buckets.js";
import { newMeter, type Meters, type StreamMeter } from "./meter.js";

type StorageRow = [basin: string, stream: string, bytes: number];

interface Entry {
  basin: string;
  stream: string;
  meter: StreamMeter;
}

export interface Totals {
  appendedRecords: number;
  appendedBytes: number;
  readRecords: number;
  readBytes: number;
}

const KEEP_DAYS = 30;

export class MetricsRecorder implements Meters {
  private readonly entries = new Map<string, Entry>();
  /** Stored metered bytes by basin\0stream; the durable copy is under STORAGE_KEY. */
  private readonly stored = new Map<string, number>();
  private current: Bucket;
  /** Buckets changed since the last write (the current one, and a finished one). */
  private readonly dirty = new Map<number, Bucket>();
  private storageDirty = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Since start, for Prometheus. Records are counted at fold time from the meters. */
  readonly totals: Totals = { appendedRecords: 0, appendedBytes: 0, readRecords: 0, readBytes: 0 };

  constructor(private readonly storage: LocalMetricsStore, private readonly flushMs = 10_000, private readonly log: (m: string) => void = () => {}) {
    for (const [, value] of storage.readMetrics(STORAGE_KEY, `${STORAGE_KEY}\u0000`)) {
      for (const [basin, stream, bytes] of value as StorageRow[]) this.stored.set(`${basin}\u0000${stream}`, bytes);
    }
    const t = minuteOf(Date.now());
    this.current = this.load(t);
  }

  private load(t: number): Bucket {
    const key = bucketKey(t);
    const row = this.storage.readMetrics(key, `${key}\u0000`)[0];
    return row ? (row[1] as Bucket) : emptyBucket(t);
  }

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    const now = Date.now();
    const toBoundary = 60_000 - (now % 60_000) + 5;
    this.timer = setTimeout(() => { void this.flush(); this.schedule(); }, Math.min(this.flushMs, toBoundary));
    this.timer.unref();
  }

  meter(basin: string, stream: string): StreamMeter {
    const key = `${basin}\u0000${stream}`;
    let e = this.entries.get(key);
    if (!e) this.entries.set(key, (e = { basin, stream, meter: newMeter() }));
    return e.meter;
  }

  dropped(basin: string, stream: string): void {
    const key = `${basin}\u0000${stream}`;
    this.fold();
    if (!this.stored.has(key)) return;
    this.stored.delete(key);
    this.sample(basin, stream, 0);
  }

  /** One request, by operation; `basin` for requests on a basin's streams and records. */
  request(op: string, basin: string | undefined): void {
    const b = this.bucket();
    b.ops[op] = (b.ops[op] ?? 0) + 1;
    if (basin !== undefined) {
      const e = basinBucket(b, basin);
      e.ops[op] = (e.ops[op] ?? 0) + 1;
    }
  }

  /** The bucket of the current minute (rolling over when the minute changed). */
  private bucket(): Bucket {
    const t = minuteOf(Date.now());
    if (t !== this.current.t) this.current = emptyBucket(t);
    this.dirty.set(t, this.current);
    return this.current;
  }

  /** Moves every meter's counts into the current bucket. */
  fold(): void {
    for (const e of this.entries.values()) {
      const m = e.meter;
      if (m.appendOps === 0 && m.readOps === 0 && m.readRecords === 0 && m.storage === 0) continue;
      const b = basinBucket(this.bucket(), e.basin);
      b.appendOps += m.appendOps;
      b.appendBytes += m.appendBytes;
      b.readOps += m.readOps;
      b.readBytes += m.readBytes;
      const t = this.totals;
      t.appendedRecords += m.appendRecords;
      t.appendedBytes += m.appendBytes;
      t.readRecords += m.readRecords;
      t.readBytes += m.readBytes;
      if (m.storage !== 0) {
        const key = `${e.basin}\u0000${e.stream}`;
        const bytes = Math.max(0, (this.stored.get(key) ?? 0) + m.storage);
        this.stored.set(key, bytes);
        this.sample(e.basin, e.stream, bytes);
      }
      m.appendOps = m.appendRecords = m.appendBytes = m.readOps = m.readRecords = m.readBytes = m.storage = 0;
    }
  }

  private sample(basin: string, stream: string, bytes: number): void {
    const b = basinBucket(this.bucket(), basin);
    (b.streams ??= {})[stream] = bytes;
    b.storage = this.basinStorage(basin);
    this.storageDirty = true;
  }

  /** Stored metered bytes of one stream, of a basin, or (no basin) of everything. */
  streamStorage(basin: string, stream: string): number {
    return this.stored.get(`${basin}\u0000${stream}`) ?? 0;
  }

  basinStorage(basin?: string): number {
    let n = 0;
    const prefix = `${basin}\u0000`;
    for (const [k, v] of this.stored) if (basin === undefined || k.startsWith(prefix)) n += v;
    return n;
  }

  /** Buckets of minutes in [fromSec, toSec], folded up to now, in time order. */
  buckets(fromSec: number, toSec: number): Bucket[] {
    this.fold();
    const byT = new Map<number, Bucket>();
    for (const [, v] of this.storage.readMetrics(bucketKey(minuteOf(fromSec * 1000)), bucketKey(toSec + 1))) byT.set((v as Bucket).t, v as Bucket);
    const from = minuteOf(fromSec * 1000);
    for (const b of [...this.dirty.values(), this.current]) if (b.t >= from && b.t <= toSec) byT.set(b.t, b);
    return [...byT.values()].sort((a, b) => a.t - b.t);
  }

  /** Folds and writes what changed; writes run one at a time. */
  flush(): Promise<void> {
    this.fold();
    this.bucket();
    const puts: [string, unknown][] = [...this.dirty.values()].filter((b) => Object.keys(b.ops).length > 0 || Object.keys(b.basins).length > 0).map((b) => [bucketKey(b.t), b]);
    for (const t of [...this.dirty.keys()]) if (t !== this.current.t) this.dirty.delete(t);
    if (this.storageDirty) {
      puts.push([STORAGE_KEY, [...this.stored].map(([k, v]) => [...k.split("\u0000"), v])]);
      this.storageDirty = false;
    }
    const below = bucketKey(this.current.t - KEEP_DAYS * 86_400);
    this.writing = this.writing.then(() => this.storage.writeMetrics(puts, below)).catch((e: unknown) => this.log(`metrics not saved: ${(e as Error).message}`));
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.flush();
  }
}
