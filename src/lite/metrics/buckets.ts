/**
 * Minute buckets: what lite keeps of its metrics (issue 15). One bucket per minute that saw
 * any activity, stored under `b:<minute epoch secs>`; the stored bytes of every stream under
 * `storage`. A bucket is cumulative for its minute, so writing it again replaces it.
 */

export interface BasinBucket {
  /** Requests on this basin (its streams and records) by operation. */
  ops: Record<string, number>;
  appendOps: number;
  appendBytes: number;
  readOps: number;
  readBytes: number;
  /** Stored metered bytes of the basin at the end of the minute, when it changed. */
  storage?: number;
  /** Stored metered bytes per stream at the end of the minute, for streams that changed. */
  streams?: Record<string, number>;
}

export interface Bucket {
  /** The minute, as epoch seconds (a multiple of 60). */
  t: number;
  /** Every request of the account by operation. */
  ops: Record<string, number>;
  basins: Record<string, BasinBucket>;
}

export const STORAGE_KEY = "storage";
const BUCKET_PREFIX = "b:";

export function bucketKey(t: number): string {
  return `${BUCKET_PREFIX}${String(t).padStart(11, "0")}`;
}

export function isBucketKey(key: string): boolean {
  return key.startsWith(BUCKET_PREFIX);
}

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

export function bump(counts: Record<string, number>, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}

/** True when the basin did anything in the bucket (the `active-basins` rule). */
export function basinActive(e: BasinBucket): boolean {
  return e.appendOps > 0 || e.readOps > 0 || Object.keys(e.ops).length > 0;
}
