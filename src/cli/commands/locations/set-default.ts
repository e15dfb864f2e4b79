/**
 * `svc locations set-default <name>`: prints the new default (stdout), confirms on stderr.
 * Spelled S2's way (`set-default-location`), stdout has the line S2's CLI prints:
 * `name (public|private)`.
 */
import { Command } from "commander";
import { handler } from "../../action.js";
import { attempt, usageError } from "../../failure.js";
import { examples } from "../../help.js";
import { locationLine } from "./list.js";

/** protocol.md §2.2 A13: 1..64 characters of [A-Za-z0-9:.-]. */
const LOCATION_NAME = /^[A-Za-z0-9:.-]{1,64}$/;

export function locationsSetDefaultCommand(command = "set-default"): Command {
  const cmd = new Command(command)
    .description("Set the default location for new basins")
    .argument("<name>", "location name, e.g. aws:us-east-1");
  cmd.action(
    handler(async (ctx, [name]) => {
      if (!LOCATION_NAME.test(name!))
        throw usageError(`invalid location name ${JSON.stringify(name)}: 1 to 64 letters, digits, ':', '.' or '-'`);
      const client = await ctx.client();
      const l = await attempt("set default location", name, () => client.locations.setDefault(name!));
      if (ctx.flags.json) await ctx.out.jsonDoc(l);
      else await ctx.out.line(command === "set-default" ? l.name : locationLine(l));
      ctx.out.success(`default location is now ${JSON.stringify(l.name)}`);
    }),
  );
  return examples(cmd, ["svc locations set-default local", "svc locations set-default aws:us-east-1"]);
}
