/** Auto-pagination over the list endpoints (protocol.md §2.0): `start_after` = last name seen. */
import type { ListOptions, Page } from "../types.js";

export interface ListAllOptions<T = unknown> extends ListOptions {
  /** Stop after this many items in total (of those `keep` keeps). */
  max?: number;
  /** Items to yield; the others are skipped and not counted against `max`. */
  keep?: (item: T) => boolean;
}

export async function* paginate<T>(
  fetchPage: (opts: ListOptions) => Promise<Page<T>>,
  keyOf: (item: T) => string,
  opts: ListAllOptions<T> = {},
): AsyncGenerator<T> {
  let startAfter = opts.startAfter;
  let remaining = opts.max ?? Infinity;
  for (;;) {
    const limit = Number.isFinite(remaining) ? Math.min(remaining, 1000) : opts.limit;
    const page = await fetchPage({ prefix: opts.prefix, startAfter, limit });
    for (const item of page.items) {
      if (opts.keep && !opts.keep(item)) continue;
      if (remaining <= 0) return;
      remaining--;
      yield item;
    }
    const last = page.items.at(-1);
    if (!page.hasMore || last === undefined || remaining <= 0) return;
    startAfter = keyOf(last);
  }
}
