/** `svc stream get <uri>`: the stream's configuration (human lines, or `--json`). */
import { Command } from "commander";
import { configLines } from "../../../format/config-view.js";
import { handler } from "../../action.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { formatUri, parseStreamUri } from "../../uri.js";

export function streamGetCommand(name = "get"): Command {
  const cmd = new Command(name).description("Show a stream's configuration").argument("<uri>", "svc://basin/stream");
  cmd.action(
    handler(async (ctx, [arg]) => {
      const { basin, stream } = parseStreamUri(arg!);
      const uri = formatUri(basin, stream);
      const client = await ctx.client();
      const config = await attempt("get stream", uri, () => client.basin(basin).streams.getConfig(stream));
      if (ctx.flags.json) return ctx.out.jsonDoc({ basin, name: stream, config });
      // Spelled S2's way (the hidden alias), durations are written as S2 writes them (docs/s2.md).
      const durations = name === "get" ? "svc" : "s2";
      for (const l of configLines(config as Record<string, unknown>, durations)) await ctx.out.line(l);
    }),
  );
  return examples(cmd, ["svc stream get svc://my-basin-01/events", "svc stream get svc://my-basin-01/events --json"]);
}
