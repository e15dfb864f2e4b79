/**
 * `svc locations get-default`: the default location's name, or `--json`. Spelled S2's way
 * (`get-default-location`), the line S2's CLI prints: `name (public|private)`.
 */
import { Command } from "commander";
import { handler } from "../../action.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { locationLine } from "./list.js";

export function locationsGetDefaultCommand(name = "get-default"): Command {
  const cmd = new Command(name).description("Print the default location for new basins");
  cmd.action(
    handler(async (ctx) => {
      const client = await ctx.client();
      const l = await attempt("get default location", undefined, () => client.locations.getDefault());
      if (ctx.flags.json) return ctx.out.jsonDoc(l);
      await ctx.out.line(name === "get-default" ? l.name : locationLine(l));
    }),
  );
  return examples(cmd, ["svc locations get-default"]);
}
