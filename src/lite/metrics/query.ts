/**
 * Metric sets from minute buckets and samples of stored bytes (protocol.md §2.2 A10–A12).
 * Pure: the HTTP handler checks the query (http/metrics.ts), the recorder supplies the
 * buckets, the samples and the stored bytes now, summed over every node.
 *
 *   account: active-basins (label), account-ops (an accumulation per operation)
 *   basin:   storage (gauge), append-ops, read-ops (operations), append-throughput,
 *            read-throughput (bytes), basin-ops (an accumulation per operation)
 *   stream:  storage (gauge)
 *
 * Accumulations have one point per interval (minute, hour or day, aligned to UTC), zeros
 * included, stamped with the interval's start. Gauges have a point for each interval with a
 * sample (the last one in it), carried forward to the interval of `now`, which shows the
 * live value.
 */

import type { MetricInterval as Interval, Metric, MetricUnit as Unit } from "../../metric-types.js";
import type { StoredSample } from "../storage/seams.js";
import { type BasinBucket, type Bucket, basinActive } from "./buckets.js";

const STEP: Record<Interval, number> = { minute: 60, hour: 3600, day: 86_400 };

export interface Range {
  start: number;
  end: number;
  interval: Interval;
}

/** Interval starts covering [start, end]. */
function grid(r: Range): number[] {
  const step = STEP[r.interval];
  const out: number[] = [];
  for (let t = Math.floor(r.start / step) * step; t <= r.end; t += step) out.push(t);
  return out;
}

function slot(t: number, r: Range): number {
  return Math.floor(t / STEP[r.interval]) * STEP[r.interval];
}

function accumulate(name: string, unit: Unit, r: Range, buckets: Bucket[], value: (b: Bucket) => number): Metric {
  const sums = new Map<number, number>(grid(r).map((t) => [t, 0]));
  for (const b of buckets) {
    const k = slot(b.t, r);
    if (sums.has(k)) sums.set(k, sums.get(k)! + value(b));
  }
  return { accumulation: { name, unit, interval: r.interval, values: [...sums] } };
}

function perOperation(r: Range, buckets: Bucket[], ops: (b: Bucket) => Record<string, number> | undefined): Metric[] {
  const names = new Set<string>();
  for (const b of buckets) for (const op of Object.keys(ops(b) ?? {})) names.add(op);
  return [...names].sort().map((op) => accumulate(op, "operations", r, buckets, (b) => ops(b)?.[op] ?? 0));
}

/**
 * Stored bytes: a point for each interval with a sample (the last one in it), carried
 * forward; the interval of `now` shows `live`, the value now.
 */
export function storageGauge(r: Range, samples: StoredSample[], now: number, live: number): Metric {
  const points: [number, number][] = [];
  const step = STEP[r.interval];
  let last: number | undefined;
  let j = 0;
  for (const t of grid(r)) {
    if (t > now) break;
    for (; j < samples.length && samples[j]!.t < t + step; j++) last = samples[j]!.bytes;
    if (now < t + step) last = live;
    if (last !== undefined) points.push([t, last]);
  }
  return { gauge: { name: "storage", unit: "bytes", values: points } };
}

/** `visible`: the basins the caller may see named (active-basins lists only those). */
export function accountMetrics(
  set: string,
  r: Range,
  buckets: Bucket[],
  visible: (basin: string) => boolean,
): Metric[] {
  if (set === "active-basins") {
    const names = new Set<string>();
    for (const b of buckets)
      for (const [name, e] of Object.entries(b.basins)) if (basinActive(e) && visible(name)) names.add(name);
    return [{ label: { name: "active-basins", values: [...names].sort() } }];
  }
  return perOperation(r, buckets, (b) => b.ops);
}

/** The basin sets counted in buckets (`storage` is `storageGauge`). */
export function basinMetrics(set: string, basin: string, r: Range, buckets: Bucket[]): Metric[] {
  const of = (b: Bucket): BasinBucket | undefined => b.basins[basin];
  switch (set) {
    case "append-ops":
      return [accumulate("append-ops", "operations", r, buckets, (b) => of(b)?.appendOps ?? 0)];
    case "read-ops":
      return [accumulate("read-ops", "operations", r, buckets, (b) => of(b)?.readOps ?? 0)];
    case "append-throughput":
      return [accumulate("append-throughput", "bytes", r, buckets, (b) => of(b)?.appendBytes ?? 0)];
    case "read-throughput":
      return [accumulate("read-throughput", "bytes", r, buckets, (b) => of(b)?.readBytes ?? 0)];
    default:
      return perOperation(r, buckets, (b) => of(b)?.ops);
  }
}
