/** The root commander program: global flags, help, suggestions, then the command registry. */
import { Command, Option } from "commander";
import { registerCommands, wantedCommand } from "./commands/index.js";
import { VERSION } from "./context.js";
import { examples, formatHelpWithGlobalsLine, isPassThrough } from "./help.js";
import { stdoutColumns } from "./stdout.js";
import { DIALECTS } from "../types.js";

/** Options of the root program that take a value (to find the command word in argv). */
const VALUE_OPTIONS = new Set([
  "--access-token",
  "--account-endpoint",
  "--basin-endpoint",
  "--profile",
  "--config",
  "--timeout",
  "--retries",
  "--compression",
  "--dialect",
  "-k",
  "--encryption-key",
  "--encryption-key-file",
]);

/** Builds the program; only the command `argv` names is loaded in full (see commands/index.ts). */
export async function buildProgram(
  argv: string[],
  write: { out: (s: string) => void; err: (s: string) => void },
): Promise<Command> {
  const program = new Command("svc")
    .description("Command-line tool for the Stream Storage Service, with svc lite, a durable local server")
    .version(VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    // A command line is readable by every local user (/proc/<pid>/cmdline, ps): the two secrets
    // that may be given on it say so, and where else to give them.
    .addOption(
      new Option(
        "--access-token <token>",
        "access token (env SVC_ACCESS_TOKEN); on a shared machine use the env or the config file: other users can read a command line (/proc/<pid>/cmdline)",
      ),
    )
    .addOption(new Option("--account-endpoint <url>", "account endpoint (env SVC_ACCOUNT_ENDPOINT)"))
    .addOption(new Option("--basin-endpoint <url>", "basin endpoint, may contain {basin} (env SVC_BASIN_ENDPOINT)"))
    .addOption(new Option("--profile <name>", "use [profiles.NAME] of the config file (env SVC_PROFILE)"))
    .addOption(new Option("--config <file>", "config file (env SVC_CONFIG)"))
    .addOption(new Option("--json", "machine-readable JSON on stdout"))
    .addOption(new Option("-q, --quiet", "print nothing on stderr except errors and warnings"))
    .addOption(new Option("-v, --verbose", "log requests (method, URL, status, latency, retries) on stderr"))
    .addOption(new Option("--no-color", "no colours on stderr or in charts (also NO_COLOR)"))
    .addOption(new Option("--timeout <dur>", "per-request timeout (default 30s)"))
    .addOption(new Option("--retries <n>", "retries after the first attempt (default 2)"))
    .addOption(
      new Option("--compression <alg>", "compression for data requests (env SVC_COMPRESSION)").choices([
        "none",
        "gzip",
        "zstd",
      ]),
    )
    .addOption(new Option("--insecure", "skip TLS certificate verification (env SVC_INSECURE)"))
    .addOption(
      new Option("--dialect <names>", "header names: svc, or s2 for an S2-compatible server (env SVC_DIALECT)").choices(
        DIALECTS,
      ),
    )
    // A subcommand's help names the global options in one line (`svc help globals` lists them).
    .configureHelp({ formatHelp: formatHelpWithGlobalsLine })
    .addOption(
      new Option(
        "-k, --encryption-key <key>",
        "key for encrypted streams: base64 of 32 bytes, never printed (env SVC_ENCRYPTION_KEY); on a shared machine use the env or --encryption-key-file: other users can read a command line (/proc/<pid>/cmdline)",
      ),
    )
    .addOption(new Option("--encryption-key-file <file>", "read the encryption key from a file"))
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
  await registerCommands(program, wantedCommand(argv, VALUE_OPTIONS));
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
