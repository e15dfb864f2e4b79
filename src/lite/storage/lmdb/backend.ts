/** lite's durable local backend: one lmdb environment in the data dir (env.ts), cut by concern. */
import type { Catalog, LocalBackend, LocalLog, LocalMetricsStore } from "../seams.js";
import type { SpaceReserveOptions } from "../space-reserve.js";
import { WRITE_OVERHEAD } from "../space-reserve.js";
import { LmdbCatalog } from "./catalog.js";
import { LmdbEnv } from "./env.js";
import { LmdbLog } from "./log.js";

class LmdbMetrics implements LocalMetricsStore {
  constructor(private readonly e: LmdbEnv) {}

  readMetrics(start: string, end: string): [string, unknown][] {
    return [...this.e.metrics.getRange({ start, end })].map(({ key, value }) => [key, value]);
  }

  writeMetrics(puts: [string, unknown][], deleteBelow: string): Promise<void> {
    const e = this.e;
    return e.write(WRITE_OVERHEAD + puts.length * 512, () => e.env.batch(() => {
      for (const { key } of e.metrics.getRange({ start: "b:", end: deleteBelow })) void e.metrics.remove(key);
      for (const [key, value] of puts) void e.metrics.put(key, value);
    })).then(() => undefined);
  }
}

export class LmdbBackend implements LocalBackend {
  readonly kind = "local";
  readonly durable = true;
  readonly catalog: Catalog;
  readonly log: LocalLog;
  readonly metrics: LocalMetricsStore;
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

  close(): Promise<void> {
    return this.env.close();
  }
}
