/**
 * Points in time for record commands (`--timestamp`, `--until`, `--ago`, `--range`): epoch
 * milliseconds, RFC 3339 (`2026-01-02T03:04:05Z`, `…+02:00`, fractions), a calendar date
 * `YYYY-MM-DD` (midnight UTC), `now`, and, where a command allows it, a duration relative to now
 * (`--until 5m` = five minutes from now, `--ago 1h` = an hour ago). Output: epoch ms, ISO 8601 UTC,
 * or relative (`3s ago`).
 */
import { clientError } from "../errors.js";
import { parseDuration } from "./duration.js";

export type TimeFormat = "ms" | "iso" | "relative";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

interface TimeParseOptions {
  /** What a bare duration means: milliseconds before now, after now, or not allowed. */
  duration?: "ago" | "ahead" | "none";
  now?: number;
}

function bad(flag: string, text: string, extra = ""): never {
  throw clientError(
    "usage",
    `${flag}: invalid time ${JSON.stringify(text)}; expected epoch milliseconds, RFC 3339 (2026-01-02T03:04:05Z), YYYY-MM-DD or now${extra}`,
  );
}

/** Epoch milliseconds of a time argument; throws a usage error naming the flag. */
export function parseTimePoint(text: string, flag: string, opts: TimeParseOptions = {}): number {
  const s = text.trim();
  const now = opts.now ?? Date.now();
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    if (!Number.isSafeInteger(n))
      throw clientError(
        "usage",
        `${flag}: ${s} is above 9007199254740991 (2^53 − 1), the largest integer svc carries exactly`,
      );
    return n;
  }
  if (s === "now") return now;
  const rfc = RFC3339.exec(s);
  const date = DATE.exec(s);
  if (rfc || date) {
    const iso = date ? `${s}T00:00:00Z` : s.replace(" ", "T");
    const ms = Date.parse(iso);
    const [y, mo, d] = (rfc ?? date)!.slice(1, 4).map(Number) as [number, number, number];
    const probe = new Date(Date.UTC(y, mo - 1, d));
    if (Number.isNaN(ms) || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d) bad(flag, text);
    if (ms < 0) throw clientError("usage", `${flag}: ${text} is before 1970`);
    return ms;
  }
  const mode = opts.duration ?? "none";
  if (mode !== "none" && /^\d/.test(s)) {
    const ms = parseDuration(s);
    return mode === "ago" ? Math.max(0, now - ms) : now + ms;
  }
  return bad(
    flag,
    text,
    mode === "ago" ? " or a duration ago (1h)" : mode === "ahead" ? " or a duration from now (5m)" : "",
  );
}

/** ISO 8601 in UTC with milliseconds; timestamps outside the Date range print as numbers. */
export function formatIso(ms: number): string {
  if (!Number.isFinite(ms) || ms > 8.64e15) return String(ms);
  return new Date(ms).toISOString();
}

/** `5s ago`, `3m ago`, `2h ago`, `in 4s`. */
export function formatRelative(ms: number, now = Date.now()): string {
  const diff = now - ms;
  const abs = Math.abs(diff);
  const [n, unit] =
    abs < 1000
      ? [abs, "ms"]
      : abs < 60_000
        ? [Math.floor(abs / 1000), "s"]
        : abs < 3_600_000
          ? [Math.floor(abs / 60_000), "m"]
          : abs < 86_400_000
            ? [Math.floor(abs / 3_600_000), "h"]
            : [Math.floor(abs / 86_400_000), "d"];
  return diff >= 0 ? `${n}${unit} ago` : `in ${n}${unit}`;
}

export function formatTime(ms: number, format: TimeFormat, now?: number): string {
  return format === "iso" ? formatIso(ms) : format === "relative" ? formatRelative(ms, now) : String(ms);
}
