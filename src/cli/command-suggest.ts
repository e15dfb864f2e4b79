/**
 * What an unknown command word most likely meant, for `svc lsit`, `svc basin lsit` and
 * `svc help …`: the nearest commands by edit distance (suggest.ts) among the subcommands of
 * where it was typed and, at the top level, among the verbs of every group too (`svc list` is
 * `svc basin list`, `svc stream list`…). A hidden S2 spelling counts as the command it stands
 * for, so an alias is never offered beside its own command. A command that starts something
 * (`svc lite` starts a server, `svc bench` writes a load) is offered only when nothing else is
 * near: a typo of a command that lists must never start a server.
 */
import type { Command } from "commander";
import { editDistance, tolerance } from "../format/suggest.js";
import { COMMANDS } from "./commands/index.js";
import { buildProgram } from "./program.js";

const STARTS = new Set(["lite", "bench"]);

interface Target {
  /** `svc basin list` */
  path: string;
  words: string[];
}

/** The whole command tree, every command loaded (only on this error path). */
async function fullTree(): Promise<Command> {
  const quiet = { out: () => undefined, err: () => undefined };
  return buildProgram(["completion"], quiet);
}

function find(root: Command, path: string[]): Command {
  let cmd = root;
  for (const name of path) cmd = cmd.commands.find((c) => c.name() === name) ?? cmd;
  return cmd;
}

/** The canonical path of a top-level entry: a hidden S2 spelling stands for its svc command. */
function canonical(name: string): string | undefined {
  const e = COMMANDS.find((c) => c.name === name);
  if (!e || e.name.startsWith("__")) return undefined;
  return e.hidden ? e.stands : e.name;
}

function targets(parent: Command, prefix: string, top: boolean): Target[] {
  const out = new Map<string, Target>();
  const add = (path: string, words: string[]): void => {
    const t = out.get(path) ?? { path, words: [] };
    t.words.push(...words);
    out.set(path, t);
  };
  for (const c of parent.commands) {
    const name = top ? canonical(c.name()) : c.name();
    if (name === undefined) continue;
    add(`${prefix} ${name}`, [c.name(), ...c.aliases()]);
  }
  if (top) {
    add("svc help", ["help"]);
    for (const group of parent.commands) {
      if (canonical(group.name()) !== group.name()) continue;
      for (const sub of group.commands) add(`svc ${group.name()} ${sub.name()}`, [sub.name(), ...sub.aliases()]);
    }
  }
  return [...out.values()];
}

interface Suggestion {
  /** `svc basin list` */
  path: string;
  distance: number;
}

/**
 * The commands `word`, typed where `parentPath` (`svc`, `svc basin`) expects a command, most
 * likely meant: nearest first, then in the order of `svc --help`.
 */
export async function suggestCommands(parentPath: string, word: string): Promise<Suggestion[]> {
  const root = await fullTree();
  const names = parentPath.split(" ").slice(1);
  const all = targets(find(root, names), parentPath, names.length === 0);
  const w = word.toLowerCase();
  const scored = all
    .map((t, i) => ({ path: t.path, i, distance: Math.min(...t.words.map((x) => editDistance(w, x))) }))
    .filter((x) => x.distance <= tolerance(word));
  const calm = scored.filter((x) => !STARTS.has(x.path.split(" ")[1] ?? ""));
  return (calm.length > 0 ? calm : scored)
    .sort((x, y) => x.distance - y.distance || x.i - y.i)
    .map(({ path, distance }) => ({ path, distance }));
}

/** The hint for an unknown command: the best guess, and up to three others as near. */
export function commandHint(suggestions: Suggestion[], parentPath: string): string | undefined {
  const [best, ...rest] = suggestions;
  if (best === undefined) return undefined;
  const also = rest.filter((s) => s.distance === best.distance).slice(0, 3);
  const more = also.length > 0 ? `or ${also.map((s) => `\`${s.path}\``).join(", ")}; ` : "";
  return `did you mean \`${best.path}\`? (${more}\`${parentPath} --help\` lists the commands)`;
}
