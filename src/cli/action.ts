/** Glue between commander actions and commands: each action receives its context first, then its arguments and flags. */
import type { Command } from "commander";
import { type Context, contextFor } from "./context.js";
import { addFlags, type Flag, type FlagValues, parseFlags } from "./flags/declare.js";

export type Handler<O> = (ctx: Context, args: string[], opts: O, cmd: Command) => Promise<void>;

export function handler<O>(fn: Handler<O>): (...all: unknown[]) => Promise<void> {
  return async (...all: unknown[]) => {
    const cmd = all[all.length - 1] as Command;
    const opts = all[all.length - 2] as O;
    const args = all
      .slice(0, -2)
      .flat()
      .filter((a): a is string => typeof a === "string");
    const ctx = await contextFor(cmd);
    await fn(ctx, args, opts, cmd);
  };
}

/**
 * Declares `flags` on `cmd` and makes `fn` its action: `fn` receives their values, typed and parsed (a value
 * its kind refuses is a usage error, exit 2, before `fn` runs).
 */
export function flagAction<const L extends readonly Flag[]>(
  cmd: Command,
  flags: L,
  fn: Handler<FlagValues<L>>,
): Command {
  addFlags(cmd, flags);
  return cmd.action(handler<Record<string, unknown>>((ctx, args, raw, c) => fn(ctx, args, parseFlags(flags, raw), c)));
}

let argvOfRun: string[] = [];

/** The argv main() was called with (for commands that pass arguments through, like `lite`). */
export function invocationArgv(): string[] {
  return argvOfRun;
}

export function setInvocationArgv(argv: string[]): void {
  argvOfRun = argv;
}
