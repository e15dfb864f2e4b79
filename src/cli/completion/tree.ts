/** The commander tree as plain data, for the completion script generators. */
import type { Command } from "commander";

export interface OptNode {
  long?: string;
  short?: string;
  description: string;
  takesValue: boolean;
  choices?: string[];
}

export interface CmdNode {
  /** Space-separated path from the root, e.g. `svc basin create`. */
  path: string;
  name: string;
  names: string[];
  description: string;
  options: OptNode[];
  children: CmdNode[];
  /** Its first argument is a stream URI (`<uri>`): a basin completes as `svc://basin/`, not as a word. */
  streamArg: boolean;
}

/** Values to offer for flags that accept more spellings than these (aliases), so have no `choices`. */
const VALUES: Record<string, string[]> = {
  "--format": ["text", "json", "json-base64", "binary"],
};

function optionsOf(cmd: Command): OptNode[] {
  return cmd.options
    .filter((o) => !o.hidden)
    .map((o) => {
      const node: OptNode = { description: o.description, takesValue: o.required || o.optional };
      if (o.long) node.long = o.long;
      if (o.short) node.short = o.short;
      if (o.argChoices) node.choices = [...o.argChoices];
      else if (o.long !== undefined && VALUES[o.long]) node.choices = VALUES[o.long];
      return node;
    });
}

export function commandTree(cmd: Command, parent = ""): CmdNode {
  const path = parent ? `${parent} ${cmd.name()}` : cmd.name();
  const hidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;
  return {
    path,
    name: cmd.name(),
    names: [cmd.name(), ...cmd.aliases()],
    description: cmd.description(),
    options: optionsOf(cmd),
    streamArg: /^uris?$/.test(cmd.registeredArguments[0]?.name() ?? ""),
    children: cmd.commands.filter((c) => !hidden(c)).map((c) => commandTree(c, path)),
  };
}

export function walk(node: CmdNode, visit: (n: CmdNode) => void): void {
  visit(node);
  for (const c of node.children) walk(c, visit);
}

/** Every (path + " " + child name or alias) → child path, for recognising typed words. */
export function transitions(root: CmdNode): [string, string][] {
  const out: [string, string][] = [];
  walk(root, (n) => {
    for (const c of n.children) for (const name of c.names) out.push([`${n.path} ${name}`, c.path]);
  });
  return out;
}

export function flagWords(o: OptNode): string[] {
  return [o.short, o.long].filter((f): f is string => f !== undefined);
}
