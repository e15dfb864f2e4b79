/**
 * What `svc metrics account|basin|stream` share: the flags, their checks (usage errors, exit
 * 2, before any request: the service's rules, see RULES) and the printing of a metric set.
 * Every request carries `start` and `end` (the service requires them): from the flags, or
 * their defaults (the last hour, ending now). Output: `--json` the response document;
 * `--format csv` `metric,unit,kind,time,value` rows (RFC 3339 UTC times, exact values); a
 * chart per series when stdout is a terminal, else a plain `time<TAB>value` table.
 */
import type { Command } from "commander";
import { formatSeconds, parseDuration } from "../../../format/duration.js";
import { metricsCsv, metricsTable, metricsText } from "../../../format/metric-output.js";
import { parseTimePoint } from "../../../format/record-time.js";
import {
  METRICS_END_LEEWAY_SECS,
  METRICS_MAX_PERIOD_SECS,
  METRICS_STORAGE_INTERVAL,
  type MetricSetResponse,
  type MetricsQuery,
} from "../../../metric-types.js";
import { flagAction, type Handler } from "../../action.js";
import type { Context } from "../../context.js";
import { usageError } from "../../failure.js";
import { choice, type FlagValues, flagList, text } from "../../flags/declare.js";

type MetricsFormat = "chart" | "table" | "csv" | "json";

type MetricLevel = "account" | "basin" | "stream";

const U32_MAX = 2 ** 32 - 1;
/** Rows of bars in a terminal chart. */
const CHART_HEIGHT = 4;

/** The service's rules of a metrics request, as the help says them. */
function rules(level: MetricLevel): string {
  const storage =
    level === "account"
      ? []
      : [
          `  - --metric storage is by ${METRICS_STORAGE_INTERVAL[level]} only (--interval ${METRICS_STORAGE_INTERVAL[level]}, the default for it)`,
        ];
  return [
    "",
    "Rules (as the service checks them; svc checks them before sending):",
    "  - the range is --start (or --ago before --end) to --end; --start must not be after --end",
    `  - the range is at most ${formatSeconds(METRICS_MAX_PERIOD_SECS)}`,
    `  - --end is not in the future (at most ${formatSeconds(METRICS_END_LEEWAY_SECS)} ahead, for clock differences)`,
    ...storage,
  ].join("\n");
}

/**
 * The flags of `svc metrics LEVEL`; `sets` are offered in help and shell completion. The times stay text: they are
 * judged with the clock and with each other, in `metricsQuery`.
 */
function metricFlags(level: MetricLevel, sets: readonly string[]) {
  const interval =
    level === "account"
      ? "points per minute, hour or day (default: the server picks by range)"
      : `points per minute, hour or day (default: the server picks by range; storage: ${METRICS_STORAGE_INTERVAL[level]})`;
  return flagList(
    // Checked by metricsQuery, which names the level in its error.
    {
      ...text(
        "--metric <set>",
        sets.length === 1 ? `the metric set (default: ${sets[0]}, the only one)` : "the metric set (required)",
      ),
      offered: sets,
    },
    text("--start <time>", "from TIME: RFC 3339, unix seconds, YYYY-MM-DD, or a duration ago (2h)", {
      conflicts: "ago",
    }),
    text("--end <time>", "until TIME (default now): RFC 3339, unix seconds, YYYY-MM-DD"),
    text(
      "--ago <duration>",
      `from this long before --end (default 1h, at most ${formatSeconds(METRICS_MAX_PERIOD_SECS)}): e.g. 30m, 1h, 7d`,
    ),
    choice("--interval <interval>", interval, ["minute", "hour", "day"]),
    choice("--format <format>", "chart (default on a terminal), table (default otherwise), csv or json", [
      "chart",
      "table",
      "csv",
      "json",
    ]),
  );
}

export type MetricFlags = FlagValues<ReturnType<typeof metricFlags>>;

/** Makes `cmd` a metrics command of `level`: the shared flags, the rules in its help, and `fn` as its action. */
export function metricsCommand(
  cmd: Command,
  level: MetricLevel,
  sets: readonly string[],
  fn: Handler<MetricFlags>,
): Command {
  return flagAction(cmd, metricFlags(level, sets), fn).addHelpText("after", rules(level));
}

/** Unix seconds of `--start`/`--end`: bare digits are seconds, otherwise a time (or a duration ago). */
export function parseMetricTime(text: string, flag: string, nowMs: number): number {
  const s = text.trim();
  const secs = /^\d+$/.test(s)
    ? Number(s)
    : Math.floor(parseTimePoint(s, flag, { duration: "ago", now: nowMs }) / 1000);
  if (!Number.isSafeInteger(secs) || secs > U32_MAX)
    throw usageError(`${flag} ${JSON.stringify(text)} is out of range: unix seconds up to ${U32_MAX}`);
  return secs;
}

/** `start` and `end` from the flags and their defaults; every problem is a usage error. */
function metricsRange(flags: MetricFlags, nowMs: number): { start: number; end: number } {
  const nowSec = Math.floor(nowMs / 1000);
  const end = flags.end === undefined ? nowSec : parseMetricTime(flags.end, "--end", nowMs);
  let start: number;
  if (flags.start !== undefined) start = parseMetricTime(flags.start, "--start", nowMs);
  else {
    const ago = parseDuration(flags.ago ?? "1h");
    if (ago < 1000) throw usageError(`--ago must be at least 1s (got ${JSON.stringify(flags.ago)})`);
    start = Math.max(0, end - Math.floor(ago / 1000));
  }
  if (start > end) throw usageError("--start must not be after --end");
  if (end - start > METRICS_MAX_PERIOD_SECS) {
    throw usageError(
      `the range must be at most ${formatSeconds(METRICS_MAX_PERIOD_SECS)}: from --start to --end is ${formatSeconds(end - start)}`,
    );
  }
  if (end > nowSec + METRICS_END_LEEWAY_SECS) {
    throw usageError(
      `--end must not be in the future: it is ${formatSeconds(end - nowSec)} from now (at most ${formatSeconds(METRICS_END_LEEWAY_SECS)} ahead, for clock differences)`,
    );
  }
  return { start, end };
}

/** The query for `sets` at `level` from the flags; every problem is a usage error. */
export function metricsQuery<S extends string>(
  flags: MetricFlags,
  level: MetricLevel,
  sets: readonly S[],
  nowMs = Date.now(),
): MetricsQuery<S> {
  const allowed = sets.join(", ");
  // Where there is one set (a stream's), it is the one asked for.
  if (flags.metric === undefined && sets.length === 1) flags = { ...flags, metric: sets[0] };
  if (flags.metric === undefined) throw usageError(`--metric is required: one of ${allowed}`);
  if (!sets.includes(flags.metric as S))
    throw usageError(`--metric ${JSON.stringify(flags.metric)} is not one of the ${level} metric sets: ${allowed}`);
  const { start, end } = metricsRange(flags, nowMs);
  let interval = flags.interval;
  if (flags.metric === "storage" && level !== "account") {
    const only = METRICS_STORAGE_INTERVAL[level];
    if (interval !== undefined && interval !== only)
      throw usageError(
        `--metric storage of a ${level} is by ${only} only: --interval ${only}, or leave --interval out`,
      );
    interval = only;
  }
  return { set: flags.metric as S, start, end, interval };
}

/** Checks the output flags before any request is made. */
export function metricsFormat(ctx: Context, flags: MetricFlags): MetricsFormat {
  if (ctx.flags.json || flags.format === "json") return "json";
  return flags.format ?? (ctx.out.dataOnTerminal ? "chart" : "table");
}

export async function printMetrics(ctx: Context, format: MetricsFormat, res: MetricSetResponse): Promise<void> {
  if (format === "json") return ctx.out.jsonDoc(res);
  if (format === "csv" || format === "table") {
    for (const l of format === "csv" ? metricsCsv(res.values) : metricsTable(res.values)) await ctx.out.line(l);
    return;
  }
  // A chart escapes the server's text itself (it may be coloured): its lines go out as they are.
  const c = await ctx.out.dataChalk();
  const paint = c ? { title: c.bold, axis: c.dim, bar: c.cyan, zero: c.dim } : undefined;
  for (const l of metricsText(res.values, { width: ctx.out.dataColumns, height: CHART_HEIGHT, paint }))
    await ctx.out.paintedLine(l);
}
