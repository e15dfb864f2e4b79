/**
 * Which command an argv names (`svc basin list`, never its arguments), and commander's parse
 * errors in the one error style of the sink: an `error:` line, then one `hint:` line naming
 * that command's help (and commander's did-you-mean suggestion, when it has one).
 */
import type { Command, CommanderError } from "commander";

/** `svc` plus the command and subcommand names of `argv`, found in the program's tree. */
export function commandPath(program: Command, argv: string[]): string {
  let cmd = program;
  const names = [program.name()];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (a.startsWith("-")) {
      if (!a.includes("=") && takesValue(cmd, a)) i++;
      continue;
    }
    if (cmd === program && a === "help" && names.length === 1) continue;
    const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!sub) break;
    cmd = sub;
    names.push(sub.name());
  }
  return names.join(" ");
}

/** Whether option word `flag` of `cmd` (or of a command above it) takes a value. */
function takesValue(cmd: Command, flag: string): boolean {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o.required || o.optional;
  }
  return false;
}

/**
 * A commander parse error as the sink's two lines. Commander's message is
 * `error: unknown command 'lsit'` with, on a second line, `(Did you mean list?)`.
 */
export function commanderErrorLines(
  e: CommanderError,
  path: string,
  ownHint?: string,
): { message: string; lines: string[] } {
  const [first = "", ...rest] = e.message.split("\n");
  const message = first.replace(/^error: /, "");
  if (ownHint !== undefined) return { message, lines: [`error: ${message}`, `hint: ${ownHint}`] };
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(" ").trim())?.[1];
  let hint = `run \`${path} --help\` for usage`;
  if (suggestion !== undefined) {
    const command = e.code === "commander.unknownCommand" && !suggestion.startsWith("one of ");
    hint = command
      ? `did you mean \`${path} ${suggestion}\`? (\`${path} --help\` lists the commands)`
      : `did you mean ${suggestion}? (\`${path} --help\` for usage)`;
  }
  return { message, lines: [`error: ${message}`, `hint: ${hint}`] };
}
