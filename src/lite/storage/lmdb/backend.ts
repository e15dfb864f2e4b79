/** lite's durable local backend: one lmdb environment in the data dir (env.ts), cut by concern. */
import type { LocalBackend, LocalCatalog, LocalLog, MetricsStore } from "../seams.js";
import type { SpaceReserveOptions } from "../space-reserve.js";
import { LmdbCatalog } from "./catalog.js";
import { LmdbEnv } from "./env.js";
import { LmdbLog } from "./log.js";
import { LmdbMetrics } from "./metrics.js";

export class LmdbBackend implements LocalBackend {
  readonly kind = "local";
  readonly durable = true;
  readonly catalog: LocalCatalog;
  readonly log: LocalLog;
  readonly metrics: MetricsStore<"local">;
  private readonly env: LmdbEnv;

  constructor(dir: string, reserve: SpaceReserveOptions = {}) {
    this.env = new LmdbEnv(dir, reserve);
    this.catalog = new LmdbCatalog(this.env);
    this.log = new LmdbLog(this.env);
    this.metrics = new LmdbMetrics(this.env);
  }

  set onSync(f: ((seconds: number) => void) | undefined) {
    this.env.onSync = f;
  }

  get onSync(): ((seconds: number) => void) | undefined {
    return this.env.onSync;
  }

  /** lmdb's flush of every commit so far (a failed one fails its own write, not a reader's wait). */
  async settled(): Promise<void> {
    await Promise.resolve(this.env.env.flushed).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.env.close();
  }
}
