/** `svc locations get-default`: the default location's name, or `--json`. */
import { Command } from "commander";
import { handler } from "../../action.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";

export function locationsGetDefaultCommand(): Command {
  const cmd = new Command("get-default").description("Print the default location for new basins");
  cmd.action(
    handler(async (ctx) => {
      const client = await ctx.client();
      const l = await attempt("get default location", undefined, () => client.locations.getDefault());
      if (ctx.flags.json) return ctx.out.jsonDoc(l);
      await ctx.out.line(l.name);
    }),
  );
  return examples(cmd, ["svc locations get-default"]);
}
