/** `svc metrics …`: account, basin and stream metrics (protocol.md §2.2 A10–A12). */
import { Command } from "commander";
import { examples } from "../../help.js";
import { metricsAccountCommand } from "./account.js";
import { metricsBasinCommand } from "./basin.js";
import { metricsStreamCommand } from "./stream.js";

export function metricsCommand(): Command {
  const cmd = new Command("metrics").description(
    "Show metrics of the account, a basin or a stream: a chart on a terminal, a table, CSV or JSON",
  );
  cmd.addCommand(metricsAccountCommand());
  cmd.addCommand(metricsBasinCommand());
  cmd.addCommand(metricsStreamCommand());
  return examples(cmd, [
    "svc metrics basin my-basin-01 --metric append-ops",
    "svc metrics basin my-basin-01 --metric append-throughput --ago 7d --interval day --format csv",
    "svc metrics stream svc://my-basin-01/events --metric storage --json",
    "svc metrics account --metric active-basins",
  ]);
}
