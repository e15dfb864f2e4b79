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
