/** `svc metrics stream <uri> [--metric storage]`: stream metrics (A12); storage is the only set, so the default. */
import { Command } from "commander";
import { STREAM_METRIC_SETS } from "../../../metric-types.js";
import type { Context } from "../../context.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { formatUri, parseStreamUri } from "../../uri.js";
import { type MetricFlags, metricsCommand, metricsFormat, metricsQuery, printMetrics } from "./metric-flags.js";

export function metricsStreamCommand(): Command {
  const cmd = metricsCommand(
    new Command("stream").description("Stream metrics: storage").argument("<uri>", "svc://basin/stream"),
    "stream",
    STREAM_METRIC_SETS,
    (ctx, [arg], flags) => showStreamMetrics(ctx, arg!, flags),
  );
  return examples(cmd, [
    "svc metrics stream svc://my-basin-01/events",
    "svc metrics stream svc://my-basin-01/events --metric storage --ago 30d --json",
  ]);
}

/** Asks for a stream's metrics and prints them (also S2's `get-stream-metrics`). */
export async function showStreamMetrics(ctx: Context, uri: string, flags: MetricFlags): Promise<void> {
  const { basin, stream } = parseStreamUri(uri);
  const q = metricsQuery(flags, "stream", STREAM_METRIC_SETS);
  const format = metricsFormat(ctx, flags);
  const client = await ctx.client();
  const res = await attempt("get stream metrics", formatUri(basin, stream), () =>
    client.metrics.streamMetrics(basin, stream, q),
  );
  await printMetrics(ctx, format, res);
}
