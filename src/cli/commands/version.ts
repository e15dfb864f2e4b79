/** `svc version`: the version, and with `--json` also node, platform and arch. */
import { Command } from "commander";
import { handler } from "../action.js";
import { VERSION } from "../context.js";
import { examples } from "../help.js";

export function versionCommand(): Command {
  const cmd = new Command("version").description("Print svc's version (--json: with node version and platform)");
  cmd.action(
    handler(async (ctx) => {
      if (ctx.flags.json)
        return ctx.out.jsonLine({
          version: VERSION,
          node: process.versions.node,
          platform: process.platform,
          arch: process.arch,
        });
      await ctx.out.line(VERSION);
    }),
  );
  return examples(cmd, ["svc version", "svc version --json"]);
}
