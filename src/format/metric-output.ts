/**
 * Metric sets (protocol.md §2.2 A10–A12) as text: charts for a terminal, a plain table for
 * pipes, CSV. Values are printed exactly as received (never rounded) except on chart axes.
 * Times in tables and CSV are RFC 3339 in UTC, to the second (`2026-11-25T14:35:00Z`): points
 * are whole epoch seconds.
 */
import type { Metric, MetricInterval, MetricUnit } from "../metric-types.js";
import { type ChartPaint, renderChart } from "./chart.js";
import { escapeLine } from "./terminal-text.js";

type MetricKind = "scalar" | "accumulation" | "gauge" | "label";

/** One metric, whatever its kind, in a single shape. */
interface FlatMetric {
  kind: MetricKind;
  name: string;
  unit?: MetricUnit;
  interval?: MetricInterval;
  /** Series points (`[epoch seconds, value]`); empty for scalars and labels. */
  points: [number, number][];
  value?: number;
  labels?: string[];
}

function flattenMetric(m: Metric): FlatMetric {
  if ("scalar" in m)
    return { kind: "scalar", name: m.scalar.name, unit: m.scalar.unit, points: [], value: m.scalar.value };
  if ("accumulation" in m) {
    const a = m.accumulation;
    return { kind: "accumulation", name: a.name, unit: a.unit, interval: a.interval, points: a.values ?? [] };
  }
  if ("gauge" in m) return { kind: "gauge", name: m.gauge.name, unit: m.gauge.unit, points: m.gauge.values ?? [] };
  if ("label" in m) return { kind: "label", name: m.label.name, points: [], labels: m.label.values ?? [] };
  const key = Object.keys(m as object)[0] ?? "?";
  return { kind: "label", name: `unknown metric kind ${key}`, points: [], labels: [] };
}

/** `2026-11-25T14:35:00Z`. */
export function rfc3339Secs(secs: number): string {
  const iso = new Date(secs * 1000).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

/** Numbers as JSON wrote them: integers in full, never in exponent form below 1e21. */
function num(v: number): string {
  return String(v);
}

function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** `metric,unit,kind,time,value` rows with a header; scalars and labels have no time. */
export function metricsCsv(values: Metric[]): string[] {
  const out = ["metric,unit,kind,time,value"];
  const row = (cells: string[]): number => out.push(cells.map(csvField).join(","));
  for (const m of values.map(flattenMetric)) {
    const unit = m.unit ?? "";
    if (m.kind === "scalar") row([m.name, unit, m.kind, "", num(m.value!)]);
    else if (m.kind === "label") for (const l of m.labels!) row([m.name, unit, m.kind, "", l]);
    else for (const [t, v] of m.points) row([m.name, unit, m.kind, rfc3339Secs(t), num(v)]);
  }
  return out;
}

function describe(m: FlatMetric): string {
  const per = m.interval ? ` per ${m.interval}` : "";
  return m.unit ? `${m.name} (${m.kind}, ${m.unit}${per})` : `${m.name} (${m.kind})`;
}

/**
 * For pipes: each series as a `# name (kind, unit)` line, a `time<TAB>value` header and one
 * line per point; a scalar as `name: value unit`; a label as `# name (label)` and one value
 * per line. Series are separated by a blank line.
 */
export function metricsTable(values: Metric[]): string[] {
  const out: string[] = [];
  for (const m of values.map((v) => shownMetric(flattenMetric(v)))) {
    if (out.length > 0) out.push("");
    if (m.kind === "scalar") {
      out.push(`${m.name}: ${num(m.value!)} ${m.unit}`);
      continue;
    }
    out.push(`# ${describe(m)}`);
    if (m.kind === "label") out.push(...m.labels!);
    else {
      out.push("time\tvalue");
      for (const [t, v] of m.points) out.push(`${rfc3339Secs(t)}\t${num(v)}`);
    }
  }
  return out;
}

interface MetricsChartOptions {
  width: number;
  height: number;
  paint?: Partial<ChartPaint>;
}

/** A chart is for eyes: the server's names, units and labels with their control characters escaped (terminal-text.ts). */
function shownMetric(m: FlatMetric): FlatMetric {
  const out: FlatMetric = { ...m, name: escapeLine(m.name) };
  if (m.unit !== undefined) out.unit = escapeLine(m.unit) as MetricUnit;
  if (m.interval !== undefined) out.interval = escapeLine(m.interval) as MetricInterval;
  if (m.labels !== undefined) out.labels = m.labels.map(escapeLine);
  return out;
}

/** For a terminal: one chart per series, `name: value unit` per scalar, labels as a list. */
export function metricsText(values: Metric[], opts: MetricsChartOptions): string[] {
  const out: string[] = [];
  const title = opts.paint?.title ?? ((s: string) => s);
  for (const m of values.map(flattenMetric)) {
    if (out.length > 0) out.push("");
    if (m.kind === "scalar") out.push(`${title(m.name)}: ${num(m.value!)} ${m.unit}`);
    else if (m.kind === "label") {
      out.push(title(`${m.name} (${m.labels!.length})`));
      out.push(...(m.labels!.length > 0 ? m.labels!.map((l) => `  ${l}`) : ["  (none)"]));
    } else {
      out.push(...renderChart({ name: m.name, unit: m.unit!, interval: m.interval, points: m.points }, opts));
    }
  }
  if (out.length === 0) out.push("(no metrics)");
  return out;
}
