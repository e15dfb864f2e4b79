/**
 * Minute buckets: what lite counts of its metrics, per minute. A node fills buckets with what
 * it counted (recorder.ts) and adds them to storage as counts; reading the counts back gives
 * buckets holding every node's sum.
 *
 * Counts (storage/seams.ts `MetricCount`): scope "" is the account, else a basin; names are
 * `op:<operation>` for requests, and `append-ops`, `append-bytes`, `read-ops`, `read-bytes`
 * for a basin's appends and reads.
 */

import { COUNT_FIELDS as FIELDS, COUNT_OP as OP } from "../storage/metric-counts.js";
import type { MetricCount } from "../storage/seams.js";

export interface BasinBucket {
  /** Requests on this basin (its streams and records) by operation. */
  ops: Record<string, number>;
  appendOps: number;
  appendBytes: number;
  readOps: number;
  readBytes: number;
}

export interface Bucket {
  /** The minute, as epoch seconds (a multiple of 60). */
  t: number;
  /** Every request of the account by operation. */
  ops: Record<string, number>;
  basins: Record<string, BasinBucket>;
}

type Field = (typeof FIELDS)[keyof typeof FIELDS];

export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000) * 60;
}

export function emptyBucket(t: number): Bucket {
  return { t, ops: {}, basins: {} };
}

export function basinBucket(b: Bucket, basin: string): BasinBucket {
  let e = b.basins[basin];
  if (!e) b.basins[basin] = e = { ops: {}, appendOps: 0, appendBytes: 0, readOps: 0, readBytes: 0 };
  return e;
}

/** True when the basin did anything in the bucket (the `active-basins` rule). */
export function basinActive(e: BasinBucket): boolean {
  return e.appendOps > 0 || e.readOps > 0 || Object.keys(e.ops).length > 0;
}

/** The counts of a bucket (zeros left out). */

/** Adds one count into the bucket of its minute (made when missing). */
export function addCount(into: Map<number, Bucket>, c: MetricCount): void {
  let b = into.get(c.t);
  if (!b) into.set(c.t, (b = emptyBucket(c.t)));
  const field = (FIELDS as Record<string, Field>)[c.name];
  if (c.scope === "") {
    if (c.name.startsWith(OP)) bump(b.ops, c.name.slice(OP.length), c.n);
    return;
  }
  const e = basinBucket(b, c.scope);
  if (c.name.startsWith(OP)) bump(e.ops, c.name.slice(OP.length), c.n);
  else if (field !== undefined) e[field] += c.n;
}

/** Buckets holding `counts`, in time order. */
export function bucketsOf(counts: Iterable<MetricCount>): Bucket[] {
  const byT = new Map<number, Bucket>();
  for (const c of counts) addCount(byT, c);
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

function bump(counts: Record<string, number>, key: string, n: number): void {
  counts[key] = (counts[key] ?? 0) + n;
}
