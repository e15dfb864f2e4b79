/**
 * `svc help …`: `svc help` (the program's help), `svc help globals` (the global flags),
 * `svc help topics` and `svc help <topic>` (the guides, help-topics.ts), and
 * `svc help <command> [<subcommand>…]` (that command's help). Anything else is a usage error,
 * exit 2, with a did-you-mean among the commands there and, at the top, the guides: never the
 * whole help with exit 0, which a script would take for an answer.
 */
import type { Command } from "commander";
import { nearest } from "../format/suggest.js";
import { commandHint, suggestCommands } from "./command-suggest.js";
import { usageError } from "./failure.js";
import { globalsHelp } from "./help.js";
import { findTopic, TOPICS, topicsText, topicText } from "./help-topics.js";

/**
 * What `svc help WORDS…` prints on stdout: a text, or the command whose help to print (with its
 * examples: commander's `outputHelp`). Throws a usage error for a word that names nothing.
 */
export async function helpFor(program: Command, args: string[]): Promise<string | Command> {
  // `svc help basin --help` asks the same as `svc help basin`.
  const words = args.filter((w) => w !== "--help" && w !== "-h");
  const [first, ...rest] = words;
  if (first === undefined) return program;
  const topic = findTopic(first);
  if (first === "globals" || first === "topics" || topic) {
    if (rest.length > 0) throw usageError(`nothing goes after 'svc help ${first}'`);
    return first === "globals" ? globalsHelp(program) : topic ? topicText(topic) : topicsText();
  }
  let cmd = program;
  let path = "svc";
  for (const word of words) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) throw await unknown(path, word);
    cmd = sub;
    path = `${path} ${sub.name()}`;
  }
  return cmd;
}

async function unknown(path: string, word: string): Promise<Error> {
  const commands = await suggestCommands(path, word);
  if (path === "svc") {
    const topics = nearest(
      word,
      TOPICS.map((t) => t.name),
    );
    const best = [...topics.map((t) => `svc help ${t}`), ...commands.map((c) => `svc help ${c.path.slice(4)}`)][0];
    return usageError(
      `no command or guide is called '${word}'`,
      best !== undefined
        ? `did you mean \`${best}\`? (\`svc help topics\` lists the guides, \`svc --help\` the commands)`
        : "`svc help topics` lists the guides, `svc --help` the commands",
    );
  }
  const hint = commandHint(
    commands.map((c) => ({ ...c, path: `svc help ${c.path.slice(4)}` })),
    path,
  );
  return usageError(`unknown command '${word}'`, hint ?? `\`${path} --help\` lists the commands`);
}
