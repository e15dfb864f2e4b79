/**
 * S2's metrics commands, hidden spellings of `svc metrics` (docs/s2.md), with S2's arguments:
 * `get-account-metrics METRIC`, `get-basin-metrics BASIN METRIC`, `get-stream-metrics URI
 * [storage]`, and S2's range flags `--start-timestamp SECS | --start-ago DUR`,
 * `--end-timestamp SECS | --end-ago DUR`, `--interval minute|hour|day`. Without a start or an
 * end they default as `svc metrics` does (the last hour, ending now); the request, its checks
 * and what is printed (a table off a terminal, `--format`, `--json`) are `svc metrics`'.
 */
import { Command } from "commander";
import { parseDuration } from "../../../format/duration.js";
import { didYouMean } from "../../../format/suggest.js";
import { ACCOUNT_METRIC_SETS, BASIN_METRIC_SETS, STREAM_METRIC_SETS } from "../../../metric-types.js";
import { flagAction } from "../../action.js";
import { attempt, usageError } from "../../failure.js";
import { choice, type FlagValues, flagList, text } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { formatUri, parseBasinArg } from "../../uri.js";
import { type MetricFlags, metricsFormat, metricsQuery, printMetrics } from "./metric-flags.js";
import { showStreamMetrics } from "./stream.js";

const FLAGS = flagList(
  text("--start-timestamp <secs>", "from this time, in unix seconds", { conflicts: "startAgo" }),
  text("--start-ago <duration>", "from this long ago, e.g. 2h, 1d (default 1h before the end)"),
  text("--end-timestamp <secs>", "until this time, in unix seconds (default now)", { conflicts: "endAgo" }),
  text("--end-ago <duration>", "until this long ago, e.g. 0s"),
  choice("--interval <interval>", "points per minute, hour or day (default: the server picks)", [
    "minute",
    "hour",
    "day",
  ]),
  choice("--format <format>", "chart (default on a terminal), table (default otherwise), csv or json", [
    "chart",
    "table",
    "csv",
    "json",
  ]),
);

type S2MetricFlags = FlagValues<typeof FLAGS>;

/** Unix seconds (as text, for `svc metrics`' checks) of `--X-timestamp` or `--X-ago`; undefined when neither. */
function timePoint(end: "start" | "end", f: S2MetricFlags, nowMs: number): string | undefined {
  const secs = end === "start" ? f.startTimestamp : f.endTimestamp;
  const ago = end === "start" ? f.startAgo : f.endAgo;
  if (secs !== undefined) {
    if (!/^\s*\d+\s*$/.test(secs))
      throw usageError(`--${end}-timestamp must be a time in unix seconds (got ${JSON.stringify(secs)})`);
    return secs.trim();
  }
  if (ago === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(ago);
  } catch (e) {
    throw usageError(`--${end}-ago: ${(e as Error).message}`);
  }
  return String(Math.max(0, Math.floor((nowMs - ms) / 1000)));
}

/** The flags of `svc metrics` that S2's arguments stand for; an unknown metric is a usage error naming the sets. */
function metricFlags(command: string, metric: string, sets: readonly string[], f: S2MetricFlags): MetricFlags {
  if (!sets.includes(metric))
    throw usageError(
      `${command}: unknown metric ${JSON.stringify(metric)}${didYouMean(metric, sets)}`,
      `the metrics of ${command}: ${sets.join(", ")}`,
    );
  const now = Date.now();
  const flags: MetricFlags = { metric };
  const start = timePoint("start", f, now);
  const end = timePoint("end", f, now);
  if (start !== undefined) flags.start = start;
  if (end !== undefined) flags.end = end;
  if (f.interval !== undefined) flags.interval = f.interval;
  if (f.format !== undefined) flags.format = f.format;
  return flags;
}

export function getAccountMetricsCommand(): Command {
  const cmd = new Command("get-account-metrics")
    .description("Account metrics, as S2's CLI asks for them (svc metrics account)")
    .argument("<metric>", ACCOUNT_METRIC_SETS.join(" | "));
  flagAction(cmd, FLAGS, async (ctx, [metric], f) => {
    const flags = metricFlags(cmd.name(), metric!, ACCOUNT_METRIC_SETS, f);
    const q = metricsQuery(flags, "account", ACCOUNT_METRIC_SETS);
    const format = metricsFormat(ctx, flags);
    const client = await ctx.client();
    await printMetrics(
      ctx,
      format,
      await attempt("get account metrics", undefined, () => client.metrics.accountMetrics(q)),
    );
  });
  return examples(cmd, ["svc get-account-metrics active-basins --start-ago 1d --end-ago 0s"]);
}

export function getBasinMetricsCommand(): Command {
  const cmd = new Command("get-basin-metrics")
    .description("Basin metrics, as S2's CLI asks for them (svc metrics basin)")
    .argument("<basin>", "basin name or s2://basin")
    .argument("<metric>", BASIN_METRIC_SETS.join(" | "));
  flagAction(cmd, FLAGS, async (ctx, [arg, metric], f) => {
    const basin = parseBasinArg(arg!);
    const flags = metricFlags(cmd.name(), metric!, BASIN_METRIC_SETS, f);
    const q = metricsQuery(flags, "basin", BASIN_METRIC_SETS);
    const format = metricsFormat(ctx, flags);
    const client = await ctx.client();
    const res = await attempt("get basin metrics", formatUri(basin), () => client.metrics.basinMetrics(basin, q));
    await printMetrics(ctx, format, res);
  });
  return examples(cmd, ["svc get-basin-metrics my-basin-01 append-ops --start-ago 1d --end-ago 0s --interval hour"]);
}

export function getStreamMetricsCommand(): Command {
  const cmd = new Command("get-stream-metrics")
    .description("Stream metrics, as S2's CLI asks for them (svc metrics stream)")
    .argument("<uri>", "s2://basin/stream")
    .argument("[metric]", `${STREAM_METRIC_SETS.join(" | ")} (the only one, the default)`);
  flagAction(cmd, FLAGS, async (ctx, [arg, metric], f) => {
    await showStreamMetrics(ctx, arg!, metricFlags(cmd.name(), metric ?? "storage", STREAM_METRIC_SETS, f));
  });
  return examples(cmd, ["svc get-stream-metrics s2://my-basin-01/events storage --start-ago 1h --end-ago 0s"]);
}
