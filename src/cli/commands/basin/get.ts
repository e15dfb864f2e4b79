/** `svc basin get <basin>`: state and configuration (human lines, or `--json`). */
import { Command } from "commander";
import { configLines } from "../../../format/config-view.js";
import { handler } from "../../action.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { formatUri, parseBasinArg } from "../../uri.js";

export function basinGetCommand(name = "get"): Command {
  const cmd = new Command(name)
    .description("Show a basin's state and configuration")
    .argument("<basin>", "basin name or svc://basin");
  cmd.action(
    handler(async (ctx, [arg]) => {
      const basin = parseBasinArg(arg!);
      const uri = formatUri(basin);
      const client = await ctx.client();
      const [config, info] = await attempt("get basin", uri, () =>
        Promise.all([client.basins.getConfig(basin), client.basins.info(basin)]),
      );
      const doc = {
        name: basin,
        state: info?.state ?? null,
        scope: info?.scope ?? null,
        created_at: info?.created_at ?? null,
        config,
      };
      if (ctx.flags.json) return ctx.out.jsonDoc(doc);
      const { config: cfg, ...head } = doc;
      // Spelled S2's way (get-basin-config), durations are written as S2 writes them (docs/s2.md).
      for (const l of configLines({ ...head, ...cfg }, name === "get" ? "svc" : "s2")) await ctx.out.line(l);
    }),
  );
  return examples(cmd, ["svc basin get my-basin-01", "svc basin get svc://my-basin-01 --json | jq .config"]);
}
