/** Help text helpers: every command ends its help with examples. */
import type { Command } from "commander";

export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText("after", `\nExamples:\n${lines.map((l) => (l.startsWith("#") ? `  ${l}` : `  $ ${l}`)).join("\n")}\n`);
}

const passThrough = new WeakSet<Command>();

/** Marks a command whose flags (including --help) belong to someone else, e.g. `svc lite`. */
export function markPassThrough(cmd: Command): Command {
  passThrough.add(cmd);
  return cmd.helpOption(false);
}

export function isPassThrough(cmd: Command): boolean {
  return passThrough.has(cmd);
}
