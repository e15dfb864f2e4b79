/** `svc basin reconfigure <basin>`: PATCH; only the given settings change; prints the result. */
import { Command } from "commander";
import { configLines } from "../../../format/config-view.js";
import { flagAction } from "../../action.js";
import { BASIN_CONFIG_FLAGS, basinConfigFromFlags } from "../../config-flags.js";
import { attempt, usageError } from "../../failure.js";
import { examples } from "../../help.js";
import { formatUri, parseBasinArg } from "../../uri.js";

export function basinReconfigureCommand(name = "reconfigure"): Command {
  const cmd = new Command(name)
    .description("Change a basin's configuration (only the given settings)")
    .argument("<basin>", "basin name or svc://basin");
  flagAction(cmd, BASIN_CONFIG_FLAGS, async (ctx, [arg], opts) => {
    const basin = parseBasinArg(arg!);
    const uri = formatUri(basin);
    const change = basinConfigFromFlags(opts);
    if (!change)
      throw usageError(
        "nothing to change: give at least one setting, e.g. --retention 7d or --create-stream-on-append",
      );
    const client = await ctx.client();
    const config = await attempt("reconfigure basin", uri, () => client.basins.reconfigure(basin, change));
    ctx.out.success(`basin ${uri} reconfigured`);
    if (ctx.flags.json) return ctx.out.jsonDoc(config);
    // Spelled S2's way (the hidden alias), durations are written as S2 writes them (docs/s2.md).
    const durations = name === "reconfigure" ? "svc" : "s2";
    for (const l of configLines(config as Record<string, unknown>, durations)) await ctx.out.line(l);
  });
  return examples(cmd, [
    "svc basin reconfigure my-basin-01 --retention 30d",
    "svc basin reconfigure my-basin-01 --no-create-stream-on-append --timestamping-mode arrival",
  ]);
}
