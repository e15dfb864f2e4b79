/**
 * Entry point: builds the program, runs one command, and owns the process's ending. This is the
 * only file that calls process.exit. Errors from anywhere arrive at the one sink (sink.ts).
 * A closed stdout pipe (EPIPE, e.g. `svc basin list | head -1`) ends quietly with exit 0, after
 * the work a command left for that moment, if any (a consumer's last commit: stdout.ts).
 */
import { type Command, CommanderError } from "commander";
import { escapeJson, escapeLine } from "../format/terminal-text.js";
import { setInvocationArgv } from "./action.js";
import { commanderErrorLines, commandPath } from "./command-path.js";
import { commandHint, suggestCommands } from "./command-suggest.js";
import { currentContext } from "./context.js";
import { envValue } from "./env-vars.js";
import { EXIT } from "./exit-codes.js";
import { ExitRequest, ioError } from "./failure.js";
import { helpFor } from "./help-command.js";
import { liteStartFailure } from "./lite-errors.js";
import { buildProgram } from "./program.js";
import { s2Spellings } from "./s2-spellings.js";
import { describeError } from "./sink.js";
import { onStdoutError, stdout, stdoutGoneWork, stdoutOpened, writeStdoutText } from "./stdout.js";

export async function main(argv: string[]): Promise<void> {
  let program: Command | undefined;
  let ending = false;
  onStdoutError((e) => {
    if (e.code === "EPIPE") {
      // The reader went away: exit 0, after what must still be done (a consumer's last commit).
      const work = stdoutGoneWork();
      if (work === undefined) process.exit(EXIT.ok);
      if (ending) return;
      ending = true;
      void work().then(
        () => process.exit(EXIT.ok),
        (err: unknown) => process.exit(handle(err, argv, program)),
      );
      return;
    }
    // As every other error: the sink's lines (a hint for a full disk), and the JSON line with --json.
    process.exit(handle(ioError(`cannot write to stdout: ${e.message}`, e), argv, program));
  });
  argv = s2Spellings(helpThroughLite(argv));
  setInvocationArgv(argv);
  let code: number = EXIT.ok;
  program = await buildProgram(argv, { out: writeStdoutText, err: (s) => process.stderr.write(s) });
  if (argv.length === 0) {
    program.outputHelp();
  } else if (argv[0] === "help") {
    try {
      const help = await helpFor(program, argv.slice(1));
      if (typeof help !== "string") help.outputHelp();
      else if (help.length <= 16_384) writeStdoutText(help);
      else stdout().write(help);
    } catch (e) {
      code = handle(e, argv, program);
    }
  } else {
    try {
      await program.parseAsync(argv, { from: "user" });
    } catch (e) {
      code = handle(e, argv, program, await unknownCommandHint(e, argv, program));
    }
  }
  const ctx = currentContext();
  try {
    await ctx?.close();
  } catch {
    // Closing idle connections cannot change the outcome.
  }
  if (stdoutOpened()) await new Promise<void>((resolve) => stdout().write("", () => resolve()));
  process.exit(code);
}

/**
 * Reports a failure of a command that ran without the program (bin/svc.js starts `svc lite`
 * directly, so its server thread starts sooner) exactly as `main` would, and exits.
 */
export function exitWithError(e: unknown, argv: string[]): never {
  process.exit(handle(liteStartFailure(e, argv), argv));
}

/** For `svc lsit` and `svc basin lsit`: the commands the word most likely meant (command-suggest.ts). */
async function unknownCommandHint(e: unknown, argv: string[], program: Command): Promise<string | undefined> {
  if (!(e instanceof CommanderError) || e.code !== "commander.unknownCommand") return undefined;
  const word = /unknown command '(.*)'/.exec(e.message)?.[1];
  if (word === undefined) return undefined;
  const path = commandPath(program, argv);
  return commandHint(await suggestCommands(path, word), path) ?? `\`${path} --help\` lists the commands`;
}

function handle(e: unknown, argv: string[], program?: Command, hint?: string): number {
  const path = program ? commandPath(program, argv) : "svc lite";
  if (e instanceof CommanderError) {
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help")
      return EXIT.ok;
    if (e.code === "commander.executeSubCommandAsync") return EXIT.runtime;
    // Commander prints nothing (program.ts): its parse errors take the sink's style here.
    const { message, lines } = commanderErrorLines(e, path, hint);
    for (const l of lines) process.stderr.write(`${l}\n`);
    if (argv.includes("--json")) {
      process.stderr.write(
        `${JSON.stringify({ error: { status: null, code: "usage", message, exit_code: EXIT.usage } })}\n`,
      );
    }
    return EXIT.usage;
  }
  if (e instanceof ExitRequest) return e.code;
  const ctx = currentContext();
  const json = ctx?.flags.json ?? argv.includes("--json");
  const {
    lines,
    code,
    json: doc,
  } = describeError(e, {
    json,
    tokenSource: ctx?.tokenSource(),
    endpoint: ctx?.endpoint(),
    profile: ctx?.profileName(),
    encryptionKey: ctx?.encryptionKeyGiven() ?? false,
    commandPath: path,
  });
  // A message may come from a server: on a terminal its control characters are shown escaped.
  const tty = process.stderr.isTTY === true;
  for (const l of lines) process.stderr.write(`${tty ? escapeLine(l) : l}\n`);
  if (json) process.stderr.write(`${tty ? escapeJson(JSON.stringify(doc)) : JSON.stringify(doc)}\n`);
  if (envValue(process.env, "debug") && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  return code;
}

/** `svc help lite` is `svc lite --help`: lite owns its flags, so it owns its help too. */
function helpThroughLite(argv: string[]): string[] {
  return argv.length === 2 && argv[0] === "help" && argv[1] === "lite" ? ["lite", "--help"] : argv;
}
