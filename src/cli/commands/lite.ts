/**
 * `svc lite`: the local server. Its flags belong to the server (src/lite parses them), so this
 * command passes every argument through untouched and loads the server only when run.
 */
import { Command } from "commander";
import { invocationArgv } from "../action.js";
import { examples, markPassThrough } from "../help.js";

export function liteCommand(): Command {
  const cmd = markPassThrough(new Command("lite"))
    .description("Run svc lite, a durable local server implementing the whole service")
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .argument("[args...]", "server flags (see `svc lite --help`)")
    .action(async (_args: string[], _opts: unknown, self: Command) => {
      const { runLite } = (await import("../../lite/run.js")) as { runLite: (argv: string[]) => Promise<void> };
      await runLite(liteArgv(self));
    });
  return examples(cmd, ["svc lite", "svc lite --port 0 --data-dir ./data", "svc lite --port 0 --in-memory"]);
}

/** Everything after `lite` on the command line, including flags commander would otherwise eat. */
function liteArgv(self: Command): string[] {
  const raw = invocationArgv();
  const at = raw.indexOf(self.name());
  return at >= 0 ? raw.slice(at + 1) : self.args;
}
