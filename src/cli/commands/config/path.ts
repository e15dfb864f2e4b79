/** `svc config path`: where the config file is (whether or not it exists). */
import { Command } from "commander";
import { handler } from "../../action.js";
import { examples } from "../../help.js";

export function configPathCommand(): Command {
  const cmd = new Command("path").description("Print the config file's path");
  cmd.action(
    handler(async (ctx) => {
      if (ctx.flags.json) return ctx.out.jsonLine({ path: ctx.configPath });
      await ctx.out.line(ctx.configPath);
    }),
  );
  return examples(cmd, ["svc config path", "SVC_CONFIG=./ci.toml svc config path"]);
}
