/**
 * A bar chart of one metric series in Unicode block characters, for a terminal. Pure: the
 * caller passes the width (terminal columns) and, on a terminal, the colours.
 *
 *   append-ops (operations per minute)
 *   4 ┤                   █
 *     │          ▄        █
 *   0 ┤▁▁▁▁▁▁▁▁▁▁█▁▁▁▁▁▁▁▁█▁
 *     └─────────────────────
 *      2026-11-25 13:35  14:35 UTC
 *
 * One bar per point; when the points outnumber the columns, each bar shows the largest of
 * `k` consecutive points (a last line says so). Bars start at zero; each row has 8 levels, so a
 * chart `height` rows high resolves `8 × height` levels. The largest value fills its column;
 * zero draws the lowest block (▁) as a baseline, and any value above zero at least that.
 */
import type { MetricInterval, MetricUnit } from "../metric-types.js";
import { humanBytes, humanCount } from "./units.js";

export const BLOCKS = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"] as const;

export type Paint = (s: string) => string;

export interface ChartPaint {
  title: Paint;
  axis: Paint;
  bar: Paint;
  /** Zero-valued bars (the baseline). */
  zero: Paint;
}

export interface ChartSeries {
  name: string;
  unit: MetricUnit;
  /** Accumulations have one; gauges do not. */
  interval?: MetricInterval;
  /** `[epoch seconds, value]`, in time order. */
  points: [number, number][];
}

interface ChartOptions {
  /** Columns available (the terminal's width); every line fits. */
  width: number;
  /** Rows of bars (default 1: a sparkline). */
  height?: number;
  paint?: Partial<ChartPaint>;
}

const same: Paint = (s) => s;

/** An axis label for a value: humanised bytes, or a count of operations. */
export function valueLabel(v: number, unit: MetricUnit): string {
  return unit === "bytes" ? humanBytes(v) : humanCount(v);
}

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/** `2026-11-25 14:35` (UTC), or `2026-11-25` by day; `short` drops the date. */
export function timeLabel(secs: number, interval: MetricInterval | undefined, short = false): string {
  const d = new Date(secs * 1000);
  const date = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
  if (interval === "day") return date;
  const time = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
  return short ? time : `${date} ${time}`;
}

/** Groups `points` into at most `columns` bars: each bar is the largest of `k` consecutive values. */
export function fitBars(points: [number, number][], columns: number): { values: number[]; perBar: number } {
  const perBar = Math.max(1, Math.ceil(points.length / Math.max(1, columns)));
  const values: number[] = [];
  for (let i = 0; i < points.length; i += perBar) {
    values.push(Math.max(...points.slice(i, i + perBar).map(([, v]) => v)));
  }
  return { values, perBar };
}

/** Eighths of the chart's height each value fills (0 for zero, at least 1 above zero). */
export function levels(values: number[], height: number): number[] {
  const top = Math.max(0, ...values);
  const full = height * 8;
  return values.map((v) => (v <= 0 || top === 0 ? 0 : Math.max(1, Math.round((v / top) * full))));
}

function cell(level: number, row: number): string {
  const fill = level - row * 8;
  if (fill >= 8) return BLOCKS[7];
  if (fill <= 0) return row === 0 ? BLOCKS[0] : " ";
  return BLOCKS[fill - 1]!;
}

function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

function titleOf(s: ChartSeries): string {
  return `${s.name} (${s.unit}${s.interval ? ` per ${s.interval}` : ""})`;
}

/** The chart's lines, each at most `width` characters wide before colouring. */
export function renderChart(s: ChartSeries, opts: ChartOptions): string[] {
  const p: ChartPaint = { title: same, axis: same, bar: same, zero: same, ...opts.paint };
  const height = Math.max(1, opts.height ?? 1);
  if (s.points.length === 0) return [p.title(fit(titleOf(s), opts.width)), p.axis("  (no data in this range)")];
  const top = Math.max(0, ...s.points.map(([, v]) => v));
  const hi = valueLabel(top, s.unit);
  const lo = valueLabel(0, s.unit);
  const gutter = Math.max(hi.length, lo.length);
  const { values, perBar } = fitBars(s.points, opts.width - gutter - 2);
  const lv = levels(values, height);
  const lines = [p.title(fit(titleOf(s), opts.width))];
  for (let row = height - 1; row >= 0; row--) {
    const label = row === height - 1 ? hi : row === 0 ? lo : "";
    const tick = label === "" ? "│" : "┤";
    const bars = runs(lv.map((l, i) => [values[i]! <= 0, cell(l, row)] as const))
      .map(([zero, text]) => (zero ? p.zero(text) : p.bar(text)))
      .join("");
    lines.push(`${p.axis(`${label.padStart(gutter)} ${tick}`)}${bars}`);
  }
  lines.push(p.axis(`${" ".repeat(gutter)} └${"─".repeat(values.length)}`));
  lines.push(p.axis(xLabels(s, gutter, values.length, opts.width)));
  if (perBar > 1)
    lines.push(
      p.axis(fit(`${" ".repeat(gutter + 2)}each bar: the largest of ${perBar} ${s.interval ?? "point"}s`, opts.width)),
    );
  return lines;
}

/** Neighbouring cells of the same kind joined, so that a colour is switched once per run. */
function runs(cells: (readonly [boolean, string])[]): [boolean, string][] {
  const out: [boolean, string][] = [];
  for (const [zero, text] of cells) {
    const last = out[out.length - 1];
    if (last && last[0] === zero) last[1] += text;
    else out.push([zero, text]);
  }
  return out;
}

/** Start time under the first bar, end time (UTC) ending under the last bar when it fits. */
function xLabels(s: ChartSeries, gutter: number, bars: number, width: number): string {
  const first = s.points[0]![0];
  const last = s.points[s.points.length - 1]![0];
  const start = timeLabel(first, s.interval);
  const sameDay = Math.floor(first / 86_400) === Math.floor(last / 86_400);
  const end = `${timeLabel(last, s.interval, sameDay)} UTC`;
  const indent = " ".repeat(gutter + 2);
  if (s.points.length === 1) return fit(`${indent}${start} UTC`, width);
  const gap = Math.max(2, bars - start.length - end.length);
  return fit(`${indent}${start}${" ".repeat(gap)}${end}`, width);
}
