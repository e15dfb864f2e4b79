/** Glue between commander actions and commands: each action receives its context first. */
import type { Command } from "commander";
import { contextFor, type Context } from "./context.js";

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

let argvOfRun: string[] = [];

/** The argv main() was called with (for commands that pass arguments through, like `lite`). */
export function invocationArgv(): string[] {
  return argvOfRun;
}

export function setInvocationArgv(argv: string[]): void {
  argvOfRun = argv;
}
