/**
 * A node's cache of catalog reads, with a stated bound: an entry is served for at most `ttlMs`
 * after it was read (then read again), and dropped at once when a hint says it changed (a
 * notification, or this node's own change). Concurrent misses of one key share one read.
 * Only found values are kept: what does not exist is asked for every time, so a basin,
 * stream or token created through any node is seen at once.
 */
import type { CachedAnswer } from "../answers.js";

interface Entry<V> {
  value: V;
  at: number;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V | undefined>>();
  /** Bumped by every invalidation: a read that started before one does not fill the cache. */
  private generation = 0;

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<V | undefined>): CachedAnswer<"shared", V | undefined> {
    const hit = this.entries.get(key);
    if (hit && performance.now() - hit.at < this.ttlMs) return hit.value;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const gen = this.generation;
    const started = performance.now();
    const p = load()
      .then((v) => {
        if (this.generation === gen) {
          if (v === undefined) this.entries.delete(key);
          else this.entries.set(key, { value: v, at: started });
        }
        return v;
      })
      .finally(() => {
        if (this.loading.get(key) === p) this.loading.delete(key);
      });
    this.loading.set(key, p);
    return p;
  }

  /** Drops one key (or, without one, everything). */
  invalidate(key?: string): void {
    this.generation++;
    if (key === undefined) {
      this.entries.clear();
      this.loading.clear();
    } else {
      this.entries.delete(key);
      this.loading.delete(key);
    }
  }

  /** Drops every entry whose value `match`es (a hint names ids, the cache is keyed by names). */
  invalidateWhere(match: (v: V) => boolean): void {
    this.generation++;
    for (const [k, e] of [...this.entries]) if (match(e.value)) this.entries.delete(k);
    this.loading.clear(); // a read under way may be of the changed value: the next get reads again
  }

  /** The first cached value that `match`es, if any (fresh or not). */
  find(match: (v: V) => boolean): V | undefined {
    for (const e of this.entries.values()) if (match(e.value)) return e.value;
    return undefined;
  }

  /** Drops every key that starts with `prefix`. */
  invalidatePrefix(prefix: string): void {
    this.generation++;
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.entries.delete(k);
    for (const k of [...this.loading.keys()]) if (k.startsWith(prefix)) this.loading.delete(k);
  }
}
