/** Confirmation for destructive commands: `--yes`, or a y/N question when a person is present. */
import { usageError } from "./failure.js";

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
