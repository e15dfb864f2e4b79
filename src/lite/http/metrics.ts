/**
 * Metrics endpoints: A10–A12 `GET /v1/metrics[/{basin}[/{stream}]]` (protocol.md §2.2) and the
 * Prometheus text at `GET /metrics`, the same on every storage: the recorder answers with the
 * counts of every node, summed by the storage.
 *
 * The query is checked here, once, as the service checks it: `set` is required (400
 * `bad_query` when missing or unknown; so is a `start`, `end` or `interval` that does not
 * parse), and then these rules, each a 422 `invalid` naming it:
 *   - `start` and `end` (epoch seconds) are both required;
 *   - start ≤ end;
 *   - the period end − start is at most 30 days;
 *   - `end` is not in the future by more than METRICS_END_LEEWAY_SECS (clocks differ);
 *   - the basin `storage` set is by `hour` only, the stream `storage` set by `minute` only.
 * Without `interval`: a storage set's own; otherwise the finest that keeps the answer at
 * most a week of minutes (≤ 6 hours: minute, ≤ 7 days: hour, else day).
 */
import { SvcError, serverError } from "../../errors.js";
import {
  ACCOUNT_METRIC_SETS as ACCOUNT_SETS,
  BASIN_METRIC_SETS as BASIN_SETS,
  type MetricInterval as Interval,
  METRICS_END_LEEWAY_SECS,
  METRICS_MAX_PERIOD_SECS,
  METRICS_STORAGE_INTERVAL,
  STREAM_METRIC_SETS as STREAM_SETS,
} from "../../metric-types.js";
import type { LiteMetrics } from "../metrics/lite-metrics.js";
import { accountMetrics, basinMetrics, type Range, storageGauge } from "../metrics/query.js";
import { getBasin } from "../store/basins.js";
import { checkStreamExists } from "../store/streams.js";
import type { RequestContext } from "./context.js";
import { inS2Dialect } from "./dialect-of.js";
import type { Exchange } from "./exchange.js";
import { checkBasinName, checkStreamName, u64Query } from "./params.js";

const U32_MAX = 0xffff_ffff;
const INTERVALS: readonly Interval[] = ["minute", "hour", "day"];

/** Which metrics a request asks for: the level, and the set. */
interface MetricAsk {
  level: "account" | "basin" | "stream";
  set: string;
}

function metricsOf(ctx: RequestContext): LiteMetrics {
  if (!ctx.metrics)
    throw serverError("not_implemented", "metrics are off on this server: it was started with --no-metrics");
  return ctx.metrics;
}

function metricSet(q: URLSearchParams, allowed: readonly string[]): string {
  const sets = q.getAll("set");
  if (sets.length !== 1)
    throw serverError("bad_query", `query parameter \`set\` is required once: one of ${allowed.join(", ")}`);
  if (!allowed.includes(sets[0]!))
    throw serverError("bad_query", `unknown metric set ${JSON.stringify(sets[0])}: one of ${allowed.join(", ")}`);
  return sets[0]!;
}

function intervalQuery(q: URLSearchParams): Interval | undefined {
  const intervals = q.getAll("interval");
  if (intervals.length > 1 || (intervals[0] !== undefined && !INTERVALS.includes(intervals[0] as Interval))) {
    throw serverError("bad_query", "interval must be one of minute, hour, day");
  }
  return intervals[0] as Interval | undefined;
}

/** The one interval of a storage set, if `ask` is one. */
function storageInterval(ask: MetricAsk): Interval | undefined {
  return ask.set === "storage" && ask.level !== "account" ? METRICS_STORAGE_INTERVAL[ask.level] : undefined;
}

function invalid(message: string): never {
  throw serverError("invalid", message);
}

/** The range of a metrics query, checked by the rules above (`nowSec`: this server's clock). */
function metricRange(q: URLSearchParams, ask: MetricAsk, nowSec: number): Range {
  const start = u64Query(q, "start", U32_MAX);
  const end = u64Query(q, "end", U32_MAX);
  const asked = intervalQuery(q);
  if (start === undefined || end === undefined)
    invalid(`${start === undefined ? "start" : "end"} is required: both start and end, in epoch seconds`);
  const span = end - start;
  if (span < 0) invalid("start must not be after end");
  if (span > METRICS_MAX_PERIOD_SECS)
    invalid(`the period from start to end must be at most 30 days (${METRICS_MAX_PERIOD_SECS} seconds); it is ${span}`);
  if (end > nowSec + METRICS_END_LEEWAY_SECS) {
    invalid(
      `end must not be in the future: it is ${end - nowSec} s ahead of this server's clock, and at most ${METRICS_END_LEEWAY_SECS} s is allowed for clock differences`,
    );
  }
  const only = storageInterval(ask);
  if (only !== undefined && asked !== undefined && asked !== only)
    invalid(`the ${ask.level} storage set is by ${only} only: interval=${only}, or leave interval out`);
  const interval = asked ?? only ?? (span <= 6 * 3600 ? "minute" : span <= 7 * 86_400 ? "hour" : "day");
  return { start, end, interval };
}

/**
 * Whether the basin or stream asked about exists. One that does not is 404 in svc's dialect
 * (`basin_not_found`, `stream_not_found`: a misspelt name says so), but in S2's an empty
 * answer (false here), as S2 answers: its API lists no 404 for metrics (docs/s2.md).
 */
async function exists(ex: Exchange, check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch (e) {
    const code = e instanceof SvcError ? e.code : undefined;
    if ((code === "basin_not_found" || code === "stream_not_found") && inS2Dialect(ex)) return false;
    throw e;
  }
}

export async function accountMetricsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const m = metricsOf(ctx);
  const set = metricSet(ex.query, ACCOUNT_SETS);
  const r = metricRange(ex.query, { level: "account", set }, Math.floor(Date.now() / 1000));
  // §9.3: the active-basins label is a listing of basins: only those in the token's set.
  const visible = (basin: string): boolean => ctx.access.covers("basins", basin);
  const buckets = await m.recorder.buckets(r.start, r.end, set === "account-ops" ? "" : undefined);
  await ex.sendJson(200, { values: accountMetrics(set, r, buckets, visible) });
}

export async function basinMetricsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const m = metricsOf(ctx);
  const basin = checkBasinName(ctx.params[0]!, "bad_path");
  const set = metricSet(ex.query, BASIN_SETS);
  const now = Math.floor(Date.now() / 1000);
  const r = metricRange(ex.query, { level: "basin", set }, now);
  if (!(await exists(ex, () => getBasin(ctx.store, basin)))) return ex.sendJson(200, { values: [] });
  if (set === "storage") {
    const s = await m.recorder.stored(basin, "", r.start, r.end);
    return ex.sendJson(200, { values: [storageGauge(r, s.samples, now, s.now)] });
  }
  await ex.sendJson(200, { values: basinMetrics(set, basin, r, await m.recorder.buckets(r.start, r.end, basin)) });
}

export async function streamMetricsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const m = metricsOf(ctx);
  const basin = checkBasinName(ctx.params[0]!, "bad_path");
  const stream = checkStreamName(ctx.params[1]!, "bad_path");
  const set = metricSet(ex.query, STREAM_SETS);
  const now = Math.floor(Date.now() / 1000);
  const r = metricRange(ex.query, { level: "stream", set }, now);
  if (!(await exists(ex, () => checkStreamExists(ctx.store, basin, stream)))) return ex.sendJson(200, { values: [] });
  const s = await m.recorder.stored(basin, stream, r.start, r.end);
  await ex.sendJson(200, { values: [storageGauge(r, s.samples, now, s.now)] });
}

/** `GET /metrics` (not under /v1): Prometheus text, guarded by `account-metrics`. */
export async function prometheusHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const m = metricsOf(ctx);
  const { totals, stored } = await m.recorder.totals();
  const body = m.stats.render(totals, stored);
  await ex.send(200, Buffer.from(body, "utf8"), "text/plain; version=0.0.4; charset=utf-8");
}
