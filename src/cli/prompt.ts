/**
 * Confirmation for destructive commands: `--yes`, or a y/N question when a person is present.
 * A "no" ends the command with exit 1 (nothing was done), so scripts can tell.
 */
import { EXIT } from "./exit-codes.js";
import { ExitRequest, usageError } from "./failure.js";
import type { Output } from "./output.js";

/** Asks; on "no" says `nothing <done>` on stderr and exits 1. */
export async function confirmOrStop(
  out: Output,
  question: string,
  yes: boolean | undefined,
  done: string,
): Promise<void> {
  if (await confirm(question, yes)) return;
  out.info(`aborted; nothing ${done}`);
  throw new ExitRequest(EXIT.runtime);
}

export async function confirm(question: string, yes: boolean | undefined): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw usageError(`${question.replace(/\?$/, "")}: refusing without --yes (no terminal to ask)`);
  }
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
