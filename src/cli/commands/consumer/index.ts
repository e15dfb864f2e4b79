/** `svc consumer …`: the positions that `svc read --consumer NAME` keeps in the service (docs/consumers.md). */
import { Command } from "commander";
import { examples } from "../../help.js";
import { consumerListCommand } from "./list.js";
import { consumerResetCommand } from "./reset.js";
import { consumerShowCommand } from "./show.js";

export function consumerCommand(): Command {
  const cmd = new Command("consumer").description(
    "List, show and reset consumers: named read positions kept in the service by `svc read --consumer NAME`",
  );
  cmd.addCommand(consumerListCommand().alias("ls"));
  cmd.addCommand(consumerShowCommand());
  cmd.addCommand(consumerResetCommand());
  return examples(cmd, [
    "svc read svc://my-basin-01/events --consumer billing -e",
    "svc consumer list svc://my-basin-01/events",
    "svc consumer show svc://my-basin-01/events billing",
    "svc consumer reset svc://my-basin-01/events billing --to-start",
  ]);
}
