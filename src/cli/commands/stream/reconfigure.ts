/** `svc stream reconfigure <uri>`: PATCH; only the given settings change; prints the result. */
import { Command } from "commander";
import { configLines } from "../../../format/config-view.js";
import { flagAction } from "../../action.js";
import { streamConfigFlags, streamConfigFromFlags } from "../../config-flags.js";
import { attempt, usageError } from "../../failure.js";
import { examples } from "../../help.js";
import { formatUri, parseStreamUri } from "../../uri.js";

export function streamReconfigureCommand(name = "reconfigure"): Command {
  const cmd = new Command(name)
    .description("Change a stream's configuration (only the given settings)")
    .argument("<uri>", "svc://basin/stream");
  flagAction(cmd, streamConfigFlags(), async (ctx, [arg], opts) => {
    const { basin, stream } = parseStreamUri(arg!);
    const uri = formatUri(basin, stream);
    const change = streamConfigFromFlags(opts);
    if (!change) throw usageError("nothing to change: give at least one setting, e.g. --retention 7d");
    const client = await ctx.client();
    const config = await attempt("reconfigure stream", uri, () =>
      client.basin(basin).streams.reconfigure(stream, change),
    );
    ctx.out.success(`stream ${uri} reconfigured`);
    if (ctx.flags.json) return ctx.out.jsonDoc({ basin, name: stream, config });
    // Spelled S2's way (the hidden alias), durations are written as S2 writes them (docs/s2.md).
    const durations = name === "reconfigure" ? "svc" : "s2";
    for (const l of configLines(config as Record<string, unknown>, durations)) await ctx.out.line(l);
  });
  return examples(cmd, ["svc stream reconfigure svc://my-basin-01/events --retention 1d --storage-class standard"]);
}
