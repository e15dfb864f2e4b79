/** `svc basin …`: the basin group. */
import { Command } from "commander";
import { examples } from "../../help.js";
import { basinCreateCommand } from "./create.js";
import { basinDeleteCommand } from "./delete.js";
import { basinGetCommand } from "./get.js";
import { basinListCommand } from "./list.js";
import { basinReconfigureCommand } from "./reconfigure.js";

export function basinCommand(): Command {
  const cmd = new Command("basin").description("Manage basins: create, list, get, reconfigure, delete");
  cmd.addCommand(basinCreateCommand());
  cmd.addCommand(basinListCommand().alias("ls"));
  cmd.addCommand(basinGetCommand());
  cmd.addCommand(basinReconfigureCommand());
  cmd.addCommand(basinDeleteCommand().alias("rm"));
  return examples(cmd, ["svc basin create my-basin-01", "svc basin list", "svc basin get my-basin-01 --json"]);
}
