/** `svc metrics account --metric <set>`: account metrics (A10). */
import { Command } from "commander";
import { ACCOUNT_METRIC_SETS } from "../../../metric-types.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { metricsCommand, metricsFormat, metricsQuery, printMetrics } from "./metric-flags.js";

export function metricsAccountCommand(): Command {
  const cmd = metricsCommand(
    new Command("account").description("Account metrics: active-basins, account-ops"),
    "account",
    ACCOUNT_METRIC_SETS,
    async (ctx, _args, flags) => {
      const q = metricsQuery(flags, "account", ACCOUNT_METRIC_SETS);
      const format = metricsFormat(ctx, flags);
      const client = await ctx.client();
      const res = await attempt("get account metrics", undefined, () => client.metrics.accountMetrics(q));
      await printMetrics(ctx, format, res);
    },
  );
  return examples(cmd, [
    "svc metrics account --metric active-basins",
    "svc metrics account --metric account-ops --ago 7d --interval day",
  ]);
}
