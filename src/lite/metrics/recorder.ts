/**
 * The metrics recorder of svc lite: owns the per-stream meters and what this node counted
 * since it last wrote (pending.ts), and adds it to storage, where every node's counts are
 * summed (storage/seams.ts `MetricsStore`: in this process for lmdb and memory, in the
 * database for PostgreSQL).
 *
 * - Hot path: appends and reads bump their stream's meter (meter.ts); requests bump the
 *   pending bucket of their minute once each. No storage call.
 * - `fold()` moves the meters into the pending bucket of the current minute. `flush()` folds
 *   and adds what is pending; it runs on a timer that fires at each minute boundary (and at
 *   least every `flushMs`), before every query (so a node answers with all it counted) and on
 *   close. A crash loses at most what was counted since the last flush; a failed add is kept
 *   and goes with the next one.
 * - Counts and samples older than `KEEP_DAYS` are deleted once a minute, with a flush.
 * - Stored bytes are a gauge changed by deltas: appends add, the sweep subtracts, a deleted
 *   stream is dropped. Reads clamp it at zero (counts lost in a crash may leave it below).
 */
import type { MetricsStore, StoredSample } from "../storage/seams.js";
import { type Bucket, basinBucket, bucketsOf, minuteOf } from "./buckets.js";
import { type Meters, newMeter, type StreamMeter } from "./meter.js";
import { emptyDelta, Pending } from "./pending.js";

interface Entry {
  basin: string;
  stream: string;
  id: number;
  meter: StreamMeter;
}

interface Drop {
  t: number;
  basin: string;
  stream: string;
  id: number;
}

/** Since metrics were first kept, summed over every node. */
export interface Totals {
  appendedRecords: number;
  appendedBytes: number;
  readRecords: number;
  readBytes: number;
}

const TOTAL_NAMES: Record<keyof Totals, string> = {
  appendedRecords: "appended-records",
  appendedBytes: "appended-bytes",
  readRecords: "read-records",
  readBytes: "read-bytes",
};
const KEEP_DAYS = 30;

export class MetricsRecorder implements Meters {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Pending();
  private drops: Drop[] = [];
  /** The minute of the last prune. */
  private pruned = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: MetricsStore,
    private readonly flushMs = 10_000,
    private readonly log: (m: string) => void = () => {},
  ) {}

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    const now = Date.now();
    const toBoundary = 60_000 - (now % 60_000) + 5;
    this.timer = setTimeout(
      () => {
        void this.flush();
        this.schedule();
      },
      Math.min(this.flushMs, toBoundary),
    );
    this.timer.unref();
  }

  meter(basin: string, stream: string, id: number): StreamMeter {
    const key = `${basin}\u0000${stream}\u0000${id}`;
    let e = this.entries.get(key);
    if (!e) this.entries.set(key, (e = { basin, stream, id, meter: newMeter() }));
    return e.meter;
  }

  /** Stream `id`'s records are gone: after what it counted is added, its stored bytes drop. */
  dropped(basin: string, stream: string, id: number): void {
    this.fold();
    this.entries.delete(`${basin}\u0000${stream}\u0000${id}`);
    this.drops.push({ t: minuteOf(Date.now()), basin, stream, id });
    void this.flush();
  }

  /** One request, by operation; `basin` for requests on a basin's streams and records. */
  request(op: string, basin: string | undefined): void {
    const b = this.pending.bucket(minuteOf(Date.now()));
    b.ops[op] = (b.ops[op] ?? 0) + 1;
    if (basin !== undefined) {
      const e = basinBucket(b, basin);
      e.ops[op] = (e.ops[op] ?? 0) + 1;
    }
  }

  /** Moves every meter's counts into the pending bucket of the current minute. */
  fold(): void {
    const t = minuteOf(Date.now());
    for (const e of this.entries.values()) {
      const m = e.meter;
      if (m.appendOps === 0 && m.readOps === 0 && m.readRecords === 0 && m.storage === 0) continue;
      if (m.appendOps !== 0 || m.appendBytes !== 0 || m.readOps !== 0 || m.readBytes !== 0) {
        const b = basinBucket(this.pending.bucket(t), e.basin);
        b.appendOps += m.appendOps;
        b.appendBytes += m.appendBytes;
        b.readOps += m.readOps;
        b.readBytes += m.readBytes;
      }
      const p = this.pending;
      p.total(TOTAL_NAMES.appendedRecords, m.appendRecords);
      p.total(TOTAL_NAMES.appendedBytes, m.appendBytes);
      p.total(TOTAL_NAMES.readRecords, m.readRecords);
      p.total(TOTAL_NAMES.readBytes, m.readBytes);
      if (m.storage !== 0) p.store(t, e.basin, e.stream, e.id, m.storage);
      m.appendOps = m.appendRecords = m.appendBytes = m.readOps = m.readRecords = m.readBytes = m.storage = 0;
    }
  }

  /** Folds and adds what is pending, then the drops; writes run one at a time, in order. */
  flush(): Promise<void> {
    this.fold();
    const now = minuteOf(Date.now());
    const prune = now > this.pruned ? now - KEEP_DAYS * 86_400 : undefined;
    if (prune !== undefined) this.pruned = now;
    const delta = this.pending.take(prune);
    const drops = this.drops.splice(0);
    this.writing = this.writing.then(async () => {
      try {
        if (!emptyDelta(delta)) await this.storage.add(delta);
      } catch (e) {
        this.pending.absorb(delta);
        this.drops.unshift(...drops);
        return this.log(`metrics not saved yet (kept for the next write): ${(e as Error).message}`);
      }
      for (const [i, d] of drops.entries()) {
        try {
          await this.storage.drop(d.t, d.basin, d.stream, d.id);
        } catch (e) {
          this.drops.unshift(...drops.slice(i));
          return this.log(
            `metrics: a deleted stream's stored bytes not dropped yet (kept for the next write): ${(e as Error).message}`,
          );
        }
      }
    });
    return this.writing;
  }

  /** Buckets of minutes in [fromSec, toSec] summed over every node: of one scope ("" the account, or a basin) or of all. */
  async buckets(fromSec: number, toSec: number, scope?: string): Promise<Bucket[]> {
    await this.flush();
    return bucketsOf(await this.storage.counts(minuteOf(fromSec * 1000), toSec, scope));
  }

  /** A stream's (stream "": a basin's) stored bytes: samples in [fromSec, toSec], and now. */
  async stored(
    basin: string,
    stream: string,
    fromSec: number,
    toSec: number,
  ): Promise<{ samples: StoredSample[]; now: number }> {
    await this.flush();
    const [samples, now] = await Promise.all([
      this.storage.samples(basin, stream, minuteOf(fromSec * 1000), toSec),
      this.storage.stored(basin, stream),
    ]);
    return { samples: samples.map((s) => ({ t: s.t, bytes: Math.max(0, s.bytes) })), now: Math.max(0, now) };
  }

  /** The totals and every basin's stored bytes, summed over every node. */
  async totals(): Promise<{ totals: Totals; stored: number }> {
    await this.flush();
    const [rows, stored] = await Promise.all([this.storage.totals(), this.storage.stored()]);
    const byName = new Map(rows);
    const of = (k: keyof Totals): number => byName.get(TOTAL_NAMES[k]) ?? 0;
    const totals = {
      appendedRecords: of("appendedRecords"),
      appendedBytes: of("appendedBytes"),
      readRecords: of("readRecords"),
      readBytes: of("readBytes"),
    };
    return { totals, stored: Math.max(0, stored) };
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.flush();
  }
}
