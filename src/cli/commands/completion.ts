/**
 * `svc completion bash|zsh|fish`: a completion script generated from the command tree.
 * `powershell` is answered with a clear message (exit 2) rather than a half-working script.
 */
import { Command } from "commander";
import { handler } from "../action.js";
import { bashScript } from "../completion/bash.js";
import { fishScript } from "../completion/fish.js";
import { commandTree } from "../completion/tree.js";
import { zshScript } from "../completion/zsh.js";
import { usageError } from "../failure.js";
import { examples } from "../help.js";

export function completionCommand(): Command {
  const cmd = new Command("completion")
    .description("Print a shell completion script")
    .addArgument(
      new Command()
        .createArgument("<shell>", "bash, zsh or fish (powershell: not yet)")
        .choices(["bash", "zsh", "fish", "powershell"]),
    );
  cmd.action(
    handler(async (ctx, [shell], _opts, self) => {
      if (shell === "powershell")
        throw usageError(
          "svc has no PowerShell completion yet; bash, zsh and fish are supported (in WSL or Git Bash, use bash)",
        );
      const root = commandTree(rootOf(self));
      const script = shell === "bash" ? bashScript(root) : shell === "zsh" ? zshScript(root) : fishScript(root);
      await ctx.out.write(script);
    }),
  );
  return examples(cmd, [
    'eval "$(svc completion bash)"                       # in ~/.bashrc',
    'svc completion zsh > "${fpath[1]}/_svc"',
    "svc completion fish > ~/.config/fish/completions/svc.fish",
  ]);
}

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}
