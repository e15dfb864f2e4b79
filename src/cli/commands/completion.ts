/** `svc completion bash|zsh|fish`: a completion script generated from the command tree. */
import { Command } from "commander";
import { bashScript } from "../completion/bash.js";
import { fishScript } from "../completion/fish.js";
import { commandTree } from "../completion/tree.js";
import { zshScript } from "../completion/zsh.js";
import { handler } from "../action.js";
import { examples } from "../help.js";

export function completionCommand(): Command {
  const cmd = new Command("completion").description("Print a shell completion script")
    .addArgument(new Command().createArgument("<shell>", "bash, zsh or fish").choices(["bash", "zsh", "fish"]));
  cmd.action(handler(async (ctx, [shell], _opts, self) => {
    const root = commandTree(rootOf(self));
    const script = shell === "bash" ? bashScript(root) : shell === "zsh" ? zshScript(root) : fishScript(root);
    await ctx.out.write(script);
  }));
  return examples(cmd, [
    'eval "$(svc completion bash)"                       # in ~/.bashrc',
    "svc completion zsh > \"${fpath[1]}/_svc\"",
    "svc completion fish > ~/.config/fish/completions/svc.fish",
  ]);
}

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}
