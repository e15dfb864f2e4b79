/** Flags shared by the list commands (basins, streams) and their parsing. */
import { Option, type Command } from "commander";
import type { ListAllOptions } from "../client/index.js";
import { usageError } from "./failure.js";

export interface ListFlags {
  prefix?: string;
  startAfter?: string;
  limit?: string;
  autoPaginate?: boolean;
  includeDeleted?: boolean;
  ndjson?: boolean;
  long?: boolean;
}

export function addListOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--prefix <prefix>", "only names starting with this"))
    .addOption(new Option("--start-after <name>", "only names after this one"))
    .addOption(new Option("--limit <n>", "list at most N items (one page of N with --no-auto-paginate)"))
    .addOption(new Option("--no-auto-paginate", "fetch a single page"))
    .addOption(new Option("--include-deleted", "include resources that are being deleted"))
    .addOption(new Option("--ndjson", "one JSON object per line, streamed while paginating"))
    .addOption(new Option("-l, --long", "a header and more columns: creation time, state (names that are not one word are quoted)"));
}

export function parseCount(text: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text.trim())) throw usageError(`${flag} must be a non-negative integer (got ${JSON.stringify(text)})`);
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n > max) throw usageError(`${flag} must be at most ${max}`);
  return n;
}

export function listOptions(f: ListFlags, prefix?: string): { all: ListAllOptions; single: boolean } {
  if (prefix !== undefined && f.prefix !== undefined) throw usageError("multiple prefixes given: use either the URI prefix or --prefix");
  const limit = f.limit !== undefined ? parseCount(f.limit, "--limit") : undefined;
  const single = f.autoPaginate === false;
  if (single && limit !== undefined && limit > 1000) throw usageError("--limit must be at most 1000 with --no-auto-paginate");
  return { all: { prefix: prefix ?? f.prefix, startAfter: f.startAfter, max: limit, limit: single ? limit : undefined }, single };
}
