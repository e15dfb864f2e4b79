/**
 * Human durations, humantime style: `30s`, `5m`, `2h 30m`, `1d`, `1w`, `7days`, `1y`, `250ms`.
 * A bare `0` is zero. Parsing returns milliseconds; `formatSeconds` renders compactly
 * (`7d`, `1h 30m`) in a form `parseDuration` accepts back, as does `formatSecondsInDays`, the
 * form of S2's CLI (days at most: `14d`, not `2w`).
 */
import { clientError } from "../errors.js";
import { didYouMean } from "./suggest.js";

const UNIT_MS: Record<string, number> = {};
function unit(ms: number, ...names: string[]): void {
  for (const n of names) UNIT_MS[n] = ms;
}
unit(1, "ms", "msec", "msecs", "millis", "millisecond", "milliseconds");
unit(1000, "s", "sec", "secs", "second", "seconds");
unit(60_000, "m", "min", "mins", "minute", "minutes");
unit(3_600_000, "h", "hr", "hrs", "hour", "hours");
unit(86_400_000, "d", "day", "days");
unit(7 * 86_400_000, "w", "week", "weeks");
unit(2_630_016_000, "M", "month", "months"); // 30.44 days, as humantime
unit(31_557_600_000, "y", "year", "years"); // 365.25 days, as humantime

/** Milliseconds in a duration string; throws a usage error naming the input. */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === "0") return 0;
  const parts = s.match(/\d+\s*[A-Za-z]+/g);
  if (parts === null || parts.join("").replace(/\s+/g, "") !== s.replace(/\s+/g, "")) {
    throw clientError("usage", `invalid duration ${JSON.stringify(text)}: expected e.g. 30s, 5m, 2h 30m, 1d, 1w`);
  }
  let total = 0;
  for (const part of parts) {
    const m = /^(\d+)\s*([A-Za-z]+)$/.exec(part);
    const ms = m ? (UNIT_MS[m[2]!] ?? UNIT_MS[m[2]!.toLowerCase()]) : undefined;
    if (!m || ms === undefined)
      throw clientError(
        "usage",
        `invalid duration ${JSON.stringify(text)}: unknown unit in ${JSON.stringify(part)}${m ? didYouMean(m[2]!, Object.keys(UNIT_MS)) : ""}`,
      );
    total += Number(m[1]) * ms;
  }
  if (!Number.isSafeInteger(total)) throw clientError("usage", `duration ${JSON.stringify(text)} is too large`);
  return total;
}

/** Whole seconds in a duration string (sub-second remainders are refused). */
export function parseDurationSecs(text: string): number {
  const ms = parseDuration(text);
  if (ms % 1000 !== 0) throw clientError("usage", `duration ${JSON.stringify(text)} must be a whole number of seconds`);
  return ms / 1000;
}

const RENDER: [string, number][] = [
  ["y", 31_557_600],
  ["w", 604_800],
  ["d", 86_400],
  ["h", 3600],
  ["m", 60],
  ["s", 1],
];

/** `604800` → `1w`, `5400` → `1h 30m`, `0` → `0s`. Years only when exact. */
export function formatSeconds(secs: number): string {
  if (secs === 0) return "0s";
  const out: string[] = [];
  let rest = secs;
  for (const [name, size] of RENDER) {
    if (name === "y" && rest % size !== 0) continue;
    if (name === "w" && rest % size !== 0) continue;
    const n = Math.floor(rest / size);
    if (n > 0) {
      out.push(`${n}${name}`);
      rest -= n * size;
    }
  }
  return out.join(" ");
}

/**
 * `1209600` → `14d`, `5400` → `1h 30m`, `0` → `0s`: days, hours, minutes and seconds only, as
 * S2's CLI writes a duration exactly (its `diff`; its `get-stream-config` prints `14days`), for
 * svc's commands spelled S2's way.
 */
export function formatSecondsInDays(secs: number): string {
  if (secs === 0) return "0s";
  const out: string[] = [];
  let rest = secs;
  for (const [name, size] of RENDER.filter(([n]) => n !== "y" && n !== "w")) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out.push(`${n}${name}`);
      rest -= n * size;
    }
  }
  return out.join(" ");
}
