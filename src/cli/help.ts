/** Help text helpers: every command ends its help with examples. */
import { type Command, Help } from "commander";

export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText(
    "after",
    `\nExamples:\n${lines.map((l) => (l.startsWith("#") ? `  ${l}` : `  $ ${l}`)).join("\n")}\n`,
  );
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

/** The one line a subcommand's help shows in place of the global options. */
const GLOBALS_LINE = "Global options (--json, -q, -v, --timeout, …): `svc help globals`";

/** The guide (`svc help TOPIC`, docs/<topic>.md) behind each top-level command. */
const GUIDES: Record<string, string> = {
  append: "records",
  read: "records",
  tail: "records",
  fence: "records",
  trim: "records",
  consumer: "consumers",
  basin: "resources",
  stream: "resources",
  token: "resources",
  "check-tail": "resources",
  config: "configuration",
  ping: "configuration",
  apply: "specs",
  diff: "specs",
  metrics: "monitoring",
  locations: "monitoring",
  bench: "performance",
  completion: "conventions",
};

/** Commander's help, with the globals line (and the guide) under a subcommand's own options. */
export function formatHelpWithGlobalsLine(cmd: Command, helper: Help): string {
  const text = Help.prototype.formatHelp.call(helper, cmd, helper);
  if (!cmd.parent) return text;
  let top = cmd;
  while (top.parent?.parent) top = top.parent;
  const guide = GUIDES[top.name()];
  return `${text}\n${GLOBALS_LINE}\n${guide ? `Guide: \`svc help ${guide}\` (docs/${guide}.md)\n` : ""}`;
}

/** `svc help globals`: the options every command takes, formatted as commander formats options. */
export function globalsHelp(program: Command): string {
  const helper = program.createHelp();
  helper.prepareContext({ helpWidth: program.configureOutput().getOutHelpWidth?.() ?? 80 });
  const options = helper.visibleOptions(program);
  const width = Math.max(...options.map((o) => helper.optionTerm(o).length));
  const items = options.map((o) => helper.formatItem(helper.optionTerm(o), width, helper.optionDescription(o), helper));
  return [
    "Global options: every command takes them, before or after its own arguments",
    "(svc --json basin list and svc basin list --json are the same).",
    "",
    ...items,
    "",
    "Settings: flag, then environment (SVC_*), then the config file's profile and top level, then the default.",
    "",
  ].join("\n");
}
