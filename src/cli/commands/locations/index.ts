/** `svc locations …`: where basins live (protocol.md §2.2 A13–A15). */
import { Command } from "commander";
import { examples } from "../../help.js";
import { locationsGetDefaultCommand } from "./get-default.js";
import { locationsListCommand } from "./list.js";
import { locationsSetDefaultCommand } from "./set-default.js";

export function locationsCommand(): Command {
  const cmd = new Command("locations").description("List locations; get or set the default location");
  cmd.addCommand(locationsListCommand().alias("ls"));
  cmd.addCommand(locationsGetDefaultCommand());
  cmd.addCommand(locationsSetDefaultCommand());
  return examples(cmd, ["svc locations list", "svc locations get-default", "svc locations set-default local"]);
}
