/**
 * Humantime durations of the apply and init-file spec (docs/design/cli.md, "Apply, diff and the
 * init file"): "7days", "1h 30m", "90s".
 */
const UNITS: Record<string, number> = {
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86_400,
  day: 86_400,
  days: 86_400,
  w: 604_800,
  week: 604_800,
  weeks: 604_800,
  M: 2_630_016,
  month: 2_630_016,
  months: 2_630_016,
  y: 31_557_600,
  year: 31_557_600,
  years: 31_557_600,
};

/** Whole seconds, or undefined when the text is not a duration. */
export function parseHumantime(text: string): number | undefined {
  const parts = text.trim().match(/\d+\s*[A-Za-z]+/g);
  if (!parts || parts.join("").replace(/\s+/g, "") !== text.replace(/\s+/g, "")) return undefined;
  let total = 0;
  for (const p of parts) {
    const m = /^(\d+)\s*([A-Za-z]+)$/.exec(p)!;
    const unit = UNITS[m[2]!] ?? UNITS[m[2]!.toLowerCase()];
    if (unit === undefined) return undefined;
    total += Number(m[1]) * unit;
  }
  return Number.isSafeInteger(total) ? total : undefined;
}
