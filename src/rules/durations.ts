/**
 * THE duration grammar of every face: svc's flags, settings and spec files, and lite's settings
 * and init file read durations alike, humantime style: `30s`, `5m`, `2h 30m`, `1d`, `1w`,
 * `7days`, `1y`, `250ms`, and a bare `0`. Units are case-sensitive only where case tells them
 * apart (`M` months, `m` minutes); otherwise any case reads.
 */

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

/** Every unit's name (for a did-you-mean). */
export const DURATION_UNITS: readonly string[] = Object.keys(UNIT_MS);

/** A duration read: its milliseconds, or what is wrong with the text. */
export type DurationReading =
  | { ms: number }
  | { problem: "shape" }
  | { problem: "unit"; part: string; unit: string }
  | { problem: "too-large" };

export function readDuration(text: string): DurationReading {
  const s = text.trim();
  if (s === "0") return { ms: 0 };
  const parts = s.match(/\d+\s*[A-Za-z]+/g);
  if (parts === null || parts.join("").replace(/\s+/g, "") !== s.replace(/\s+/g, "")) return { problem: "shape" };
  let total = 0;
  for (const part of parts) {
    const m = /^(\d+)\s*([A-Za-z]+)$/.exec(part)!;
    const ms = UNIT_MS[m[2]!] ?? UNIT_MS[m[2]!.toLowerCase()];
    if (ms === undefined) return { problem: "unit", part, unit: m[2]! };
    total += Number(m[1]) * ms;
  }
  return Number.isSafeInteger(total) ? { ms: total } : { problem: "too-large" };
}

/** Whole seconds of a duration; undefined when it is not one or has a sub-second remainder. */
export function durationSecs(text: string): number | undefined {
  const r = readDuration(text);
  return "ms" in r && r.ms % 1000 === 0 ? r.ms / 1000 : undefined;
}
