/**
 * Confirmation for destructive commands: `--yes`, or a y/N question when a person is present.
 * A "no" (or end of input) ends the command with exit 1 (nothing was done), so scripts can tell;
 * Ctrl-C at the question is an interrupt like anywhere else: exit 130, nothing done.
 */
import { EXIT } from "./exit-codes.js";
import { ExitRequest, usageError } from "./failure.js";
import type { Output } from "./output.js";

/** Asks; on "no" says `nothing <done>` on stderr and exits 1; on Ctrl-C, exits 130. */
export async function confirmOrStop(
  out: Output,
  question: string,
  yes: boolean | undefined,
  done: string,
): Promise<void> {
  const answer = await confirm(question, yes);
  if (answer === "yes") return;
  if (answer === "interrupted") {
    out.info(`interrupted; nothing ${done}`);
    throw new ExitRequest(EXIT.interrupted);
  }
  out.info(`aborted; nothing ${done}`);
  throw new ExitRequest(EXIT.runtime);
}

export async function confirm(question: string, yes: boolean | undefined): Promise<"yes" | "no" | "interrupted"> {
  if (yes) return "yes";
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw usageError(`${question.replace(/\?$/, "")}: refusing without --yes (no terminal to ask)`);
  }
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  let interrupted: () => void = () => undefined;
  try {
    // readline takes Ctrl-C at the terminal as its own SIGINT event (raw mode); a SIGINT sent
    // to the process (kill -INT) arrives as the process's.
    return await new Promise((resolve) => {
      interrupted = (): void => {
        process.stderr.write("\n");
        resolve("interrupted");
      };
      rl.once("SIGINT", interrupted);
      process.once("SIGINT", interrupted);
      rl.once("close", () => resolve("no"));
      rl.question(`${question} [y/N] `).then(
        (answer) => resolve(/^y(es)?$/i.test(answer.trim()) ? "yes" : "no"),
        () => resolve("no"),
      );
    });
  } finally {
    process.off("SIGINT", interrupted);
    rl.close();
  }
}
