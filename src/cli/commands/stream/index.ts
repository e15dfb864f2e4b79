/** `svc stream …`: the stream group. */
import { Command } from "commander";
import { examples } from "../../help.js";
import { streamCreateCommand } from "./create.js";
import { streamDeleteCommand } from "./delete.js";
import { streamGetCommand } from "./get.js";
import { streamInfoCommand } from "./info.js";
import { streamListCommand } from "./list.js";
import { streamReconfigureCommand } from "./reconfigure.js";

export function streamCommand(): Command {
  const cmd = new Command("stream").description("Manage streams: create, list, get, info, reconfigure, delete");
  cmd.addCommand(streamCreateCommand());
  cmd.addCommand(streamListCommand().alias("ls"));
  cmd.addCommand(streamGetCommand());
  cmd.addCommand(streamInfoCommand().alias("describe"));
  cmd.addCommand(streamReconfigureCommand());
  cmd.addCommand(streamDeleteCommand().alias("rm"));
  return examples(cmd, [
    "svc stream create svc://my-basin-01/events",
    "svc stream list my-basin-01",
    "svc stream get svc://my-basin-01/events",
    "svc stream info svc://my-basin-01/events",
  ]);
}
