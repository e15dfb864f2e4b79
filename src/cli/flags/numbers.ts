/** Numeric flag values for the data commands: counts, sequence numbers, byte sizes, seconds. */
import { parseDuration } from "../../format/duration.js";
import { usageError } from "../failure.js";

export function parseCount(text: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const t = text.trim().replaceAll("_", "");
  if (!/^\d+$/.test(t)) throw usageError(`${flag} must be a non-negative integer (got ${JSON.stringify(text)})`);
  const n = Number(t);
  if (!Number.isSafeInteger(n) || n > max) throw usageError(`${flag} must be at most ${max} (got ${text})`);
  return n;
}

const SIZE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1000,
  kb: 1000,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gib: 1024 ** 3,
};

/** `1048576`, `512KiB`, `1MiB`, `2mb`. */
export function parseSize(text: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const m = /^\s*(\d+)\s*([A-Za-z]*)\s*$/.exec(text);
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined)
    throw usageError(`${flag} must be a size in bytes like 1048576, 512KiB or 1MiB (got ${JSON.stringify(text)})`);
  const n = Number(m[1]) * unit;
  if (!Number.isSafeInteger(n) || n > max) throw usageError(`${flag} must be at most ${max} bytes (got ${text})`);
  return n;
}

/** Whole seconds: `30` or a duration (`5m`). */
export function parseSeconds(text: string, flag: string): number {
  if (/^\s*\d+\s*$/.test(text)) return parseCount(text, flag, 0xffff_ffff);
  const ms = parseDuration(text);
  return Math.ceil(ms / 1000);
}

/** Milliseconds: a duration (`30s`, `250ms`) or a bare number of seconds. */
export function parseMillis(text: string): number {
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  return parseDuration(text);
}
