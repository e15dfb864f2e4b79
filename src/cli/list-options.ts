/**
 * Flags shared by the list commands (basins, streams, tokens) and their parsing, and how a
 * single page (`--no-auto-paginate`) tells a script whether more exist and where to go on:
 * `--json` prints `{"<items>": [...], "has_more": bool, "next_start_after": name|null}`,
 * `--ndjson` ends with one `{"has_more": …, "next_start_after": …}` line, and text says it on
 * stderr. Auto-paginated output (the default) lists everything and stays a bare array.
 */
import type { ListAllOptions } from "../client/paginate.js";
import type { Page } from "../types.js";
import type { Context } from "./context.js";
import { usageError } from "./failure.js";
import { bool, type FlagValues, flagList, text } from "./flags/declare.js";
import { count } from "./flags/kinds.js";

export const LIST_FLAGS = flagList(
  text("--prefix <prefix>", "only names starting with this"),
  text("--start-after <name>", "only names after this one"),
  count("--limit <n>", "list at most N items (one page of N with --no-auto-paginate)"),
  bool("--no-auto-paginate", "fetch a single page (--json/--ndjson then say has_more and next_start_after)"),
  bool("--include-deleted", "include resources that are being deleted"),
  bool("--ndjson", "one JSON object per line, streamed while paginating"),
  bool("-l, --long", "a header and more columns: creation time, state (names that are not one word are quoted)"),
);

export type ListFlags = FlagValues<typeof LIST_FLAGS>;

/** What the paging flags of a list command (basins, streams, tokens) say. */
type PagingFlags = Pick<ListFlags, "prefix" | "startAfter" | "limit" | "autoPaginate">;

export function listOptions(f: PagingFlags, prefix?: string): { all: ListAllOptions; single: boolean } {
  if (prefix !== undefined && f.prefix !== undefined)
    throw usageError("multiple prefixes given: use either the URI prefix or --prefix");
  const limit = f.limit;
  const single = !f.autoPaginate;
  if (single && limit !== undefined && limit > 1000)
    throw usageError("--limit must be at most 1000 with --no-auto-paginate");
  return {
    all: { prefix: prefix ?? f.prefix, startAfter: f.startAfter, max: limit, limit: single ? limit : undefined },
    single,
  };
}

/** Where a single page ends. */
export interface PageEnd {
  has_more: boolean;
  /** The last name of the page, to pass as `--start-after` for the next one (null when none is left). */
  next_start_after: string | null;
}

export function pageEnd<T>(page: Page<T>, keyOf: (item: T) => string): PageEnd {
  const last = page.items.at(-1);
  return { has_more: page.hasMore, next_start_after: page.hasMore && last !== undefined ? keyOf(last) : null };
}

/** After a single page's items: `--ndjson`'s last line, or (text) a note on stderr; `--json` wraps the page itself. */
export async function finishPage(ctx: Context, ndjson: boolean | undefined, end: PageEnd, what: string): Promise<void> {
  if (ndjson) return ctx.out.jsonLine(end);
  if (!ctx.flags.json && end.next_start_after !== null)
    ctx.out.info(`more ${what}: continue with --start-after '${end.next_start_after.replaceAll("'", "'\\''")}'`);
}
