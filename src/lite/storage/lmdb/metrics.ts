/**
 * Metrics in lmdb's `metrics` database (local-metrics.ts lays out the keys), written through
 * the environment's one gate (env.ts): admitted against reserved space, durable when resolved.
 *
 * Data dirs from before the sums kept whole minute buckets under `b:<minute>` and every
 * stream's stored bytes under `storage`; they are turned into counts, samples and stored rows
 * once, when the dir is opened, and removed.
 */
import type { Database } from "lmdb";
import { type KvWriter, LocalMetrics, type MetricsKv } from "../local-metrics.js";
import { countsOf, type MinuteTally } from "../metric-counts.js";
import { WRITE_OVERHEAD } from "../space-reserve.js";
import type { LmdbEnv } from "./env.js";

/** An old bucket: the tallies of a minute, and samples of stored bytes per basin and stream. */
type OldBucket = MinuteTally & { basins: Record<string, { storage?: number; streams?: Record<string, number> }> };

class LmdbKv implements MetricsKv {
  readonly writer: KvWriter;

  constructor(
    private readonly db: Database<number, string>,
    private readonly e: LmdbEnv,
  ) {
    this.writer = { get: (k) => db.get(k), put: (k, v) => void db.put(k, v), remove: (k) => void db.remove(k) };
  }

  get(key: string): number | undefined {
    return this.db.get(key);
  }

  *range(start: string, end: string): Iterable<[string, number]> {
    for (const { key, value } of this.db.getRange({ start, end })) yield [key, value];
  }

  write(size: number, body: (w: KvWriter) => void): Promise<void> {
    return this.e
      .write(WRITE_OVERHEAD + size * 128, () => this.db.transaction(() => body(this.writer)))
      .then(() => undefined);
  }
}

export class LmdbMetrics extends LocalMetrics {
  constructor(e: LmdbEnv) {
    const db = e.metrics as Database<number, string>;
    const kv = new LmdbKv(db, e);
    super(kv);
    const old = [...e.metrics.getRange({ start: "b:", end: "b;" })];
    const storage = e.metrics.get("storage") as [string, string, number][] | undefined;
    if (old.length > 0 || storage !== undefined)
      db.transactionSync(() =>
        this.convert(
          kv.writer,
          old.map(({ value }) => value as OldBucket),
          storage ?? [],
        ),
      );
  }

  private convert(w: KvWriter, old: OldBucket[], storage: [string, string, number][]): void {
    const t = Math.floor(Date.now() / 60_000) * 60;
    const stored = storage.map(([basin, stream, n]) => ({ t, basin, stream, id: 0, n }));
    this.apply(w, { counts: old.flatMap(countsOf), totals: [], stored });
    for (const b of old) {
      for (const [basin, e] of Object.entries(b.basins)) {
        if (e.storage !== undefined) this.sample(w, b.t, basin, "", e.storage);
        for (const [stream, bytes] of Object.entries(e.streams ?? {})) this.sample(w, b.t, basin, stream, bytes);
      }
      w.remove(`b:${String(b.t).padStart(11, "0")}`);
    }
    w.remove("storage");
  }
}
