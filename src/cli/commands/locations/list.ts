/** `svc locations list`: `name (public|private)` lines, or `--json`. */
import { Command } from "commander";
import type { LocationInfo } from "../../../types.js";
import { handler } from "../../action.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";

/** `name (public)`: a location as `svc locations list` and S2's CLI print it. */
export function locationLine(l: LocationInfo): string {
  return `${l.name} (${l.is_private ? "private" : "public"})`;
}

export function locationsListCommand(name = "list"): Command {
  const cmd = new Command(name).description("List the locations basins can be placed in");
  cmd.action(
    handler(async (ctx) => {
      const client = await ctx.client();
      const locations = await attempt("list locations", undefined, () => client.locations.list());
      if (ctx.flags.json) return ctx.out.jsonDoc(locations);
      for (const l of locations) await ctx.out.line(locationLine(l));
    }),
  );
  return examples(cmd, ["svc locations list", "svc locations list --json"]);
}
