/**
 * The hot-path half of lite's metrics: one plain counter object per stream that
 * appends and reads bump with a few integer additions. The recorder (recorder.ts) folds the
 * counters into minute buckets when a minute ends, when metrics are queried, and on close.
 */

/** Counts since the last fold. `storage` is a change in stored metered bytes. */
export interface StreamMeter {
  appendOps: number;
  appendRecords: number;
  appendBytes: number;
  readOps: number;
  readRecords: number;
  readBytes: number;
  storage: number;
}

export function newMeter(): StreamMeter {
  return { appendOps: 0, appendRecords: 0, appendBytes: 0, readOps: 0, readRecords: 0, readBytes: 0, storage: 0 };
}

/** What the store and the janitor need from metrics; `NO_METERS` when metrics are off. */
export interface Meters {
  /** The counter object of stream `id` (the same object for the same stream). */
  meter(basin: string, stream: string, id: number): StreamMeter;
  /** Stream `id`'s records and data are gone (deleted): its stored bytes drop to zero. */
  dropped(basin: string, stream: string, id: number): void;
}

const SCRATCH = newMeter();

/** Metrics off (`--no-metrics`): every stream bumps one scratch object nobody reads. */
export const NO_METERS: Meters = {
  meter: () => SCRATCH,
  dropped: () => {},
};
