/**
 * What this node counted and has not yet added to storage: buckets by minute, changes of
 * stored bytes by stream, totals. `take()` hands it over as one delta and starts afresh; a
 * delta that could not be added is taken back with `absorb()` and goes with the next one.
 */

import { countsOf } from "../storage/metric-counts.js";
import type { MetricsDelta, StoredChange } from "../storage/seams.js";
import { addCount, type Bucket, emptyBucket } from "./buckets.js";

export class Pending {
  private buckets = new Map<number, Bucket>();
  private stored = new Map<string, StoredChange>();
  private totals = new Map<string, number>();
  /** The bucket last asked for: requests in one minute find it without a map lookup. */
  private last: Bucket = emptyBucket(-1);

  /** The bucket of minute `t` (made when missing). */
  bucket(t: number): Bucket {
    if (this.last.t === t) return this.last;
    let b = this.buckets.get(t);
    if (!b) this.buckets.set(t, (b = emptyBucket(t)));
    this.last = b;
    return b;
  }

  /** A change of a stream's stored bytes, counted in minute `t`. */
  store(t: number, basin: string, stream: string, id: number, n: number): void {
    const key = `${basin}\u0000${stream}\u0000${id}`;
    const had = this.stored.get(key);
    this.stored.set(key, { t: Math.max(t, had?.t ?? 0), basin, stream, id, n: n + (had?.n ?? 0) });
  }

  total(name: string, n: number): void {
    if (n !== 0) this.totals.set(name, (this.totals.get(name) ?? 0) + n);
  }

  /** Everything pending as one delta; pending is empty afterwards. */
  take(pruneBefore?: number): MetricsDelta {
    const delta: MetricsDelta = {
      counts: [...this.buckets.values()].flatMap(countsOf),
      totals: [...this.totals],
      stored: [...this.stored.values()],
    };
    if (pruneBefore !== undefined) delta.pruneBefore = pruneBefore;
    this.buckets = new Map();
    this.stored = new Map();
    this.totals = new Map();
    this.last = emptyBucket(-1);
    return delta;
  }

  /** Takes back a delta that was not added (it goes with the next one). */
  absorb(d: MetricsDelta): void {
    for (const c of d.counts) addCount(this.buckets, c);
    for (const [name, n] of d.totals) this.total(name, n);
    for (const s of d.stored) this.store(s.t, s.basin, s.stream, s.id, s.n);
  }
}

/** True when a delta carries nothing to add. */
export function emptyDelta(d: MetricsDelta): boolean {
  return d.counts.length === 0 && d.totals.length === 0 && d.stored.length === 0 && d.pruneBefore === undefined;
}
