/** `svc __complete names WORD` (hidden): names for the shell completion scripts; see completion/names.ts. */
import { Command } from "commander";
import { handler } from "../action.js";
import { completeNames } from "../completion/names.js";

export function completeCommand(): Command {
  return new Command("__complete").argument("<what>").argument("[word]")
    .action(handler(async (ctx, [what, word]) => {
      if (what !== "names") return;
      ctx.flags.timeout = "1s";
      ctx.flags.retries = "0";
      try {
        for (const n of await completeNames(await ctx.client(), word ?? "")) await ctx.out.line(n);
      } catch {
        // Completion offers what it can; a server that is away offers nothing.
      }
    }));
}
