/** Quantities for humans: bytes in binary units (`1.50 KiB`), counts with thousands separators. */

export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

/** `1234567` → `1,234,567`; fractions keep up to two decimals. */
export function humanCount(n: number): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

/**
 * A rate for humans that never rounds a real rate to 0: two significant digits below 10
 * (`0.33`, `4.5`), one decimal below 100 (`45.2`), whole numbers above.
 */
export function humanRate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return "0";
  if (perSecond >= 100) return String(Math.round(perSecond));
  if (perSecond >= 10) return perSecond.toFixed(1);
  if (perSecond < 0.001) return "<0.001";
  return String(Number(perSecond.toPrecision(2)));
}

/** Bytes per second: `humanBytes` from 1 KiB/s up, `humanRate` below (`0.9 B/s`, never `0 B/s`). */
export function humanByteRate(perSecond: number): string {
  return perSecond >= 1024 ? `${humanBytes(perSecond)}/s` : `${humanRate(perSecond)} B/s`;
}
