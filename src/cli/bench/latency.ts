/**
 * A latency histogram with 1 % relative precision (log buckets), so a long run at 100k
 * records/s keeps a few KiB instead of every sample. min and max are exact.
 */
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
/** Values below 1 µs share the first bucket. */
const FLOOR_MS = 0.001;

export interface LatencySummary {
  count: number;
  min_ms: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
}

export class LatencyHistogram {
  private readonly buckets = new Map<number, number>();
  count = 0;
  private min = Infinity;
  private max = -Infinity;

  add(ms: number): void {
    const v = Math.max(ms, 0);
    const i = v <= FLOOR_MS ? 0 : Math.ceil(Math.log(v / FLOOR_MS) / LOG_GROWTH);
    this.buckets.set(i, (this.buckets.get(i) ?? 0) + 1);
    this.count++;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  /** The upper bound of the bucket holding the p-th percentile (clamped to min..max). */
  percentile(p: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (const i of [...this.buckets.keys()].sort((a, b) => a - b)) {
      seen += this.buckets.get(i)!;
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, FLOOR_MS * GROWTH ** i));
    }
    return this.max;
  }

  summary(): LatencySummary {
    const r = (x: number): number => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : NaN);
    return {
      count: this.count,
      min_ms: r(this.count ? this.min : NaN),
      p50_ms: r(this.percentile(50)),
      p90_ms: r(this.percentile(90)),
      p99_ms: r(this.percentile(99)),
      p999_ms: r(this.percentile(99.9)),
      max_ms: r(this.count ? this.max : NaN),
    };
  }
}
