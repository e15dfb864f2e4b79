/**
 * Metrics endpoints (issue 15): A10–A12 `GET /v1/metrics[/{basin}[/{stream}]]` (protocol.md
 * §2.2) and the Prometheus text at `GET /metrics`. Query: `set` (required), `start` and
 * `end` (epoch seconds, u32), `interval` (minute | hour | day). Defaults: `end` now; without
 * `start`, the last hour by minute, day by hour, or 30 days by day; without `interval`, the
 * finest that keeps the answer at most a week of minutes.
 */
import { serverError } from "../../errors.js";
import type { LiteMetrics } from "../metrics/lite-metrics.js";
import { ACCOUNT_SETS, accountMetrics, BASIN_SETS, basinMetrics, MAX_POINTS, points, STREAM_SETS, streamMetrics, type Interval, type Range } from "../metrics/query.js";
import type { RequestContext } from "./context.js";
import { getBasin } from "../store/basins.js";
import { checkStreamExists } from "../store/streams.js";
import type { Exchange } from "./exchange.js";
import { checkBasinName, checkStreamName, u64Query } from "./params.js";

const U32_MAX = 0xffff_ffff;
const INTERVALS: readonly Interval[] = ["minute", "hour", "day"];
const DEFAULT_SPAN: Record<Interval, number> = { minute: 3600, hour: 86_400, day: 30 * 86_400 };

function metricsOf(ctx: RequestContext): LiteMetrics {
  if (!ctx.metrics) throw serverError("not_implemented", "metrics are off on this server (svc lite --no-metrics)");
  return ctx.metrics;
}

function metricSet(q: URLSearchParams, allowed: readonly string[]): string {
  const sets = q.getAll("set");
  if (sets.length !== 1) throw serverError("bad_query", `query parameter \`set\` is required once: one of ${allowed.join(", ")}`);
  if (!allowed.includes(sets[0]!)) throw serverError("bad_query", `unknown metric set ${JSON.stringify(sets[0])}: one of ${allowed.join(", ")}`);
  return sets[0]!;
}

export function metricRange(q: URLSearchParams, nowSec: number): Range {
  const end = u64Query(q, "end", U32_MAX) ?? nowSec;
  const intervals = q.getAll("interval");
  if (intervals.length > 1 || (intervals[0] !== undefined && !INTERVALS.includes(intervals[0] as Interval))) {
    throw serverError("bad_query", "interval must be one of minute, hour, day");
  }
  let interval = intervals[0] as Interval | undefined;
  let start = u64Query(q, "start", U32_MAX);
  if (start !== undefined && start > end) throw serverError("invalid", "start must not be after end");
  if (start === undefined) start = Math.max(0, end - DEFAULT_SPAN[interval ?? "minute"]);
  interval ??= end - start <= 7 * 86_400 ? (end - start <= 6 * 3600 ? "minute" : "hour") : "day";
  const range = { start, end, interval };
  if (points(range) > MAX_POINTS) throw serverError("invalid", `that range has more than ${MAX_POINTS} ${interval}s: choose a coarser interval or a shorter range`);
  return range;
}

export async function accountMetricsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const m = metricsOf(ctx);
  const set = metricSet(ex.query, ACCOUNT_SETS);
  const r = metricRange(ex.query, Math.floor(Date.now() / 1000));
  // §9.3: the active-basins label is a listing of basins: only those in the token's set.
  const visible = (basin: string): boolean => ctx.auth.covers(ctx.principal, "basins", basin);
  await ex.sendJson(200, { values: accountMetrics(set, r, m.recorder.buckets(r.start, r.end), visible) });
}

export async function basinMetricsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const m = metricsOf(ctx);
  const basin = checkBasinName(ctx.params[0]!, "bad_path");
  const set = metricSet(ex.query, BASIN_SETS);
  const now = Math.floor(Date.now() / 1000);
  const r = metricRange(ex.query, now);
  await getBasin(ctx.store, basin);
  const buckets = m.recorder.buckets(r.start, r.end);
  await ex.sendJson(200, { values: basinMetrics(set, basin, r, buckets, now, m.recorder.basinStorage(basin)) });
}

export async function streamMetricsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const m = metricsOf(ctx);
  const basin = checkBasinName(ctx.params[0]!, "bad_path");
  const stream = checkStreamName(ctx.params[1]!, "bad_path");
  metricSet(ex.query, STREAM_SETS);
  const now = Math.floor(Date.now() / 1000);
  const r = metricRange(ex.query, now);
  await checkStreamExists(ctx.store, basin, stream);
  const buckets = m.recorder.buckets(r.start, r.end);
  await ex.sendJson(200, { values: streamMetrics(basin, stream, r, buckets, now, m.recorder.streamStorage(basin, stream)) });
}

/** `GET /metrics` (not under /v1): Prometheus text, guarded by `account-metrics`. */
export async function prometheusHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const m = metricsOf(ctx);
  m.recorder.fold();
  const body = m.stats.render(m.recorder.totals, m.recorder.basinStorage());
  await ex.send(200, Buffer.from(body, "utf8"), "text/plain; version=0.0.4; charset=utf-8");
}
