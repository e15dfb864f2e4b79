/** The root commander program: global flags, help, suggestions, then the command registry. */
import { Command } from "commander";
import { registerCommands, wantedCommand } from "./commands/index.js";
import { VERSION } from "./context.js";
import { addFlags, valueSpellings } from "./flags/declare.js";
import { GLOBAL_FLAGS } from "./global-flags.js";
import { examples, formatHelpWithGlobalsLine, isPassThrough } from "./help.js";
import { stdoutColumns } from "./stdout.js";

/** Builds the program; only the command `argv` names is loaded in full (see commands/index.ts). */
export async function buildProgram(
  argv: string[],
  write: { out: (s: string) => void; err: (s: string) => void },
): Promise<Command> {
  const program = addFlags(
    new Command("svc")
      .description("Command-line tool for the Stream Storage Service, with svc lite, a durable local server")
      .version(VERSION, "-V, --version", "print the version")
      .helpOption("-h, --help", "show help"),
    GLOBAL_FLAGS,
  )
    // A subcommand's help names the global options in one line (`svc help globals` lists them).
    .configureHelp({ formatHelp: formatHelpWithGlobalsLine })
    .showSuggestionAfterError(true)
    // Help is plain text (no colours to keep or strip); its width is a terminal's, found without
    // opening stdout when it cannot be one (stdout.ts), else commander's 80. Parse errors are
    // printed by main.ts in the sink's style (command-path.ts), so commander prints none.
    .configureOutput({
      writeOut: write.out,
      writeErr: write.err,
      outputError: () => undefined,
      getOutHelpWidth: () => stdoutColumns() ?? 80,
      getOutHasColors: () => false,
    })
    .exitOverride();
  examples(program, [
    "svc lite                                   # start a local server (another terminal)",
    "svc ping                                   # who answers, is the token accepted, latency",
    "svc basin create my-basin-01",
    "svc stream create svc://my-basin-01/events",
    "svc basin list --json",
    "svc check-tail svc://my-basin-01/events",
    "svc apply -f spec.json --dry-run",
  ]);
  program.addHelpText(
    "after",
    "\nThe options above go with any command: `svc help globals` lists them alone.\nGuides (records, resources, configuration, specs, exit codes…): `svc help topics`.\nExit codes: 0 ok, 1 error, 2 usage, 3 auth, 4 not found, 5 conflict, 6 unavailable,\n7 bad input, 8 verification failed, 10 pending changes, 75 outcome unknown,\n130 interrupted.\n",
  );
  await registerCommands(program, wantedCommand(argv, new Set(valueSpellings(GLOBAL_FLAGS))));
  inheritSettings(program);
  return program;
}

/** `addCommand` does not copy settings (exitOverride, output, suggestions): copy them down. */
function inheritSettings(cmd: Command): void {
  for (const sub of cmd.commands) {
    sub.copyInheritedSettings(cmd);
    if (isPassThrough(sub)) sub.helpOption(false);
    inheritSettings(sub);
  }
}
