/**
 * Human durations as svc's flags and files read them (the grammar: rules/durations.ts, which
 * lite reads with too): parsing returns milliseconds; `formatSeconds` renders compactly
 * (`7d`, `1h 30m`) in a form `parseDuration` accepts back, as does `formatSecondsInDays`, the
 * form of S2's CLI (days at most: `14d`, not `2w`).
 */
import { clientError } from "../errors.js";
import { DURATION_UNITS, readDuration } from "../rules/durations.js";
import { didYouMean } from "./suggest.js";

/** Milliseconds in a duration string (rules/durations.ts); throws a usage error naming the input. */
export function parseDuration(text: string): number {
  const r = readDuration(text);
  if ("ms" in r) return r.ms;
  if (r.problem === "shape")
    throw clientError("usage", `invalid duration ${JSON.stringify(text)}: expected e.g. 30s, 5m, 2h 30m, 1d, 1w`);
  if (r.problem === "unit")
    throw clientError(
      "usage",
      `invalid duration ${JSON.stringify(text)}: unknown unit in ${JSON.stringify(r.part)}${didYouMean(r.unit, DURATION_UNITS)}`,
    );
  throw clientError("usage", `duration ${JSON.stringify(text)} is too large`);
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
