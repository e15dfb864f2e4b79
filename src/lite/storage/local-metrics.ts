/**
 * Metrics of a local backend (lmdb, memory): the sums of seams.ts `MetricsStore` kept under
 * ordered string keys in this one process. Adding reads and writes the keys it changes in one
 * write, so it is as atomic as the backend's writes.
 *
 *   c:<minute>:<scope>/<name>      → n       scope "" is the account (basin names have no '/')
 *   t:<name>                       → n
 *   gs:<basin>/<stream>            → bytes   a stream's stored bytes
 *   gb:<basin>                     → bytes   its basin's
 *   s:<minute>:<basin>/<stream>    → bytes   a sample (stream "": the basin's)
 *
 * Minutes are written with 11 digits, so key order is time order.
 */
import type { MetricCount, MetricsDelta, MetricsStore, StoredSample } from "./seams.js";

/** The keys and values of a local backend, with one atomic, durable write. */
export interface MetricsKv {
  get(key: string): number | undefined;
  /** Keys in [start, end) in order. */
  range(start: string, end: string): Iterable<[string, number]>;
  /** Runs `body` (gets, puts, removes) as one write; resolves when durable. `size`: the values it writes, about. */
  write(size: number, body: (w: KvWriter) => void): Promise<void>;
}

export interface KvWriter {
  get(key: string): number | undefined;
  put(key: string, value: number): void;
  remove(key: string): void;
}

const minute = (t: number): string => String(t).padStart(11, "0");
const countKey = (t: number, scope: string, name: string): string => `c:${minute(t)}:${scope}/${name}`;
const streamKey = (basin: string, stream: string): string => (stream === "" ? `gb:${basin}` : `gs:${basin}/${stream}`);
const sampleKey = (t: number, basin: string, stream: string): string => `s:${minute(t)}:${basin}/${stream}`;

/** `<scope>/<name>` after the minute: the scope is everything before the first '/'. */
function split(rest: string): [string, string] {
  const slash = rest.indexOf("/");
  return [rest.slice(0, slash), rest.slice(slash + 1)];
}

export class LocalMetrics implements MetricsStore<"local"> {
  constructor(private readonly kv: MetricsKv) {}

  add(delta: MetricsDelta): Promise<void> {
    const size = delta.counts.length + delta.totals.length + 3 * delta.stored.length;
    return this.kv.write(size, (w) => this.apply(w, delta));
  }

  /** Adds `delta` through `w`, inside a write. */
  apply(w: KvWriter, delta: MetricsDelta): void {
    const bump = (key: string, n: number): number => {
      const v = (w.get(key) ?? 0) + n;
      w.put(key, v);
      return v;
    };
    for (const c of delta.counts) bump(countKey(c.t, c.scope, c.name), c.n);
    for (const [name, n] of delta.totals) bump(`t:${name}`, n);
    const basins = new Map<string, { t: number; n: number }>();
    for (const s of delta.stored) {
      this.sample(w, s.t, s.basin, s.stream, bump(streamKey(s.basin, s.stream), s.n));
      const b = basins.get(s.basin);
      basins.set(s.basin, { t: Math.max(b?.t ?? 0, s.t), n: (b?.n ?? 0) + s.n });
    }
    for (const [basin, { t, n }] of basins) this.sample(w, t, basin, "", bump(streamKey(basin, ""), n));
    if (delta.pruneBefore !== undefined) this.prune(w, delta.pruneBefore);
  }

  /** Sets a sample of stored bytes (stream "": the basin's), inside a write. */
  sample(w: KvWriter, t: number, basin: string, stream: string, bytes: number): void {
    w.put(sampleKey(t, basin, stream), bytes);
  }

  private prune(w: KvWriter, before: number): void {
    for (const prefix of ["c:", "s:"]) {
      for (const [key] of this.kv.range(prefix, `${prefix}${minute(before)}`)) w.remove(key);
    }
  }

  /** One process orders its own changes and drops: the id is not needed here. */
  drop(t: number, basin: string, stream: string, _id: number): Promise<void> {
    if (this.kv.get(streamKey(basin, stream)) === undefined) return Promise.resolve();
    return this.kv.write(4, (w) => {
      const bytes = w.get(streamKey(basin, stream));
      if (bytes === undefined) return;
      w.remove(streamKey(basin, stream));
      this.sample(w, t, basin, stream, 0);
      const left = (w.get(streamKey(basin, "")) ?? 0) - bytes;
      w.put(streamKey(basin, ""), left);
      this.sample(w, t, basin, "", left);
    });
  }

  counts(from: number, to: number, scope?: string): MetricCount[] {
    const out: MetricCount[] = [];
    for (const [key, n] of this.kv.range(`c:${minute(from)}`, `c:${minute(to + 1)}`)) {
      const [s, name] = split(key.slice(14));
      if (scope === undefined || s === scope) out.push({ t: Number(key.slice(2, 13)), scope: s, name, n });
    }
    return out;
  }

  samples(basin: string, stream: string, from: number, to: number): StoredSample[] {
    const out: StoredSample[] = [];
    const want = `${basin}/${stream}`;
    for (const [key, bytes] of this.kv.range(`s:${minute(from)}`, `s:${minute(to + 1)}`)) {
      if (key.slice(14) === want) out.push({ t: Number(key.slice(2, 13)), bytes });
    }
    return out;
  }

  stored(basin?: string, stream = ""): number {
    if (basin !== undefined) return this.kv.get(streamKey(basin, stream)) ?? 0;
    let n = 0;
    for (const [, v] of this.kv.range("gb:", "gb;")) n += v;
    return n;
  }

  totals(): [string, number][] {
    return [...this.kv.range("t:", "t;")].map(([key, n]) => [key.slice(2), n]);
  }
}
