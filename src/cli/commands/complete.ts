/** `svc __complete names WORD` (hidden): names for the shell completion scripts; see completion/names.ts. */
import { Command } from "commander";
import { handler } from "../action.js";
import { completeNames } from "../completion/names.js";

export function completeCommand(): Command {
  return new Command("__complete")
    .argument("<what>")
    .argument("[word]")
    .argument("[kind]", "basin or stream: what the command expects")
    .action(
      handler(async (ctx, [what, word, kind]) => {
        if (what !== "names") return;
        ctx.flags.timeout = "1s";
        ctx.flags.retries = "0";
        try {
          for (const n of await completeNames(await ctx.client(), word ?? "", kind === "stream" ? "stream" : "basin"))
            await ctx.out.line(n);
        } catch {
          // Completion offers what it can; a server that is away offers nothing.
        }
      }),
    );
}
