/**
 * The metrics of the service (protocol.md §2.2 A10–A12): the sets of each level, the rules of a
 * metrics query, and the shape of what it answers. Shared by the client, the CLI and svc lite.
 */
/** Metric sets per level (protocol.md §2.2 A10–A12). */
export const ACCOUNT_METRIC_SETS = ["active-basins", "account-ops"] as const;
export const BASIN_METRIC_SETS = [
  "storage",
  "append-ops",
  "read-ops",
  "read-throughput",
  "append-throughput",
  "basin-ops",
] as const;
export const STREAM_METRIC_SETS = ["storage"] as const;
export type AccountMetricSet = (typeof ACCOUNT_METRIC_SETS)[number];
export type BasinMetricSet = (typeof BASIN_METRIC_SETS)[number];
export type StreamMetricSet = (typeof STREAM_METRIC_SETS)[number];

export type MetricInterval = "minute" | "hour" | "day";
export type MetricUnit = "bytes" | "operations";

/**
 * The rules of a metrics request, as the service checks them: `start` and `end` (Unix epoch
 * seconds) are required, start ≤ end, the period at most 30 days, `end` at most a few minutes
 * ahead of the server's clock (clocks differ), and each `storage` set by its one interval.
 */
export const METRICS_MAX_PERIOD_SECS = 30 * 86_400;
export const METRICS_END_LEEWAY_SECS = 300;
export const METRICS_STORAGE_INTERVAL = { basin: "hour", stream: "minute" } as const;

/** `start` and `end` are Unix epoch seconds (required by the service); the server picks `interval` when left out. */
export interface MetricsQuery<S extends string = string> {
  set: S;
  start?: number;
  end?: number;
  interval?: MetricInterval;
}

/** One metric: exactly one key. Points are `[epoch seconds, value]`. */
export type Metric =
  | { scalar: { name: string; unit: MetricUnit; value: number } }
  | { accumulation: { name: string; unit: MetricUnit; interval: MetricInterval; values: [number, number][] } }
  | { gauge: { name: string; unit: MetricUnit; values: [number, number][] } }
  | { label: { name: string; values: string[] } };

export interface MetricSetResponse {
  values: Metric[];
}
