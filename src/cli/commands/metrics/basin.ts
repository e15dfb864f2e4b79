/** `svc metrics basin <basin> --metric <set>`: basin metrics (A11). */
import { Command } from "commander";
import { BASIN_METRIC_SETS } from "../../../metric-types.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { formatUri, parseBasinArg } from "../../uri.js";
import { metricsCommand, metricsFormat, metricsQuery, printMetrics } from "./metric-flags.js";

export function metricsBasinCommand(): Command {
  const cmd = metricsCommand(
    new Command("basin")
      .description("Basin metrics: storage, append-ops, read-ops, append-throughput, read-throughput, basin-ops")
      .argument("<basin>", "basin name or svc://basin"),
    "basin",
    BASIN_METRIC_SETS,
    async (ctx, [arg], flags) => {
      const basin = parseBasinArg(arg!);
      const q = metricsQuery(flags, "basin", BASIN_METRIC_SETS);
      const format = metricsFormat(ctx, flags);
      const client = await ctx.client();
      const res = await attempt("get basin metrics", formatUri(basin), () => client.metrics.basinMetrics(basin, q));
      await printMetrics(ctx, format, res);
    },
  );
  return examples(cmd, [
    "svc metrics basin my-basin-01 --metric append-throughput",
    "svc metrics basin my-basin-01 --metric basin-ops --ago 1d --interval hour",
    "svc metrics basin my-basin-01 --metric append-ops --start 2026-11-25T00:00:00Z --end 2026-11-25T06:00:00Z --format csv",
  ]);
}
