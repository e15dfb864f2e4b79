/**
 * Bug: zsh completion pasted each candidate's description into the command line: `svc rea<Tab>`
 * gave `svc read\:Read\ records\ from…`, for every command, subcommand and flag. The generator
 * escaped the `name:description` separator that zsh's `_describe` splits on, so zsh took the
 * whole pair for the word; the only test checked that some script was printed.
 *
 * Now each shell's script is loaded in a real interactive zsh, bash and fish on a terminal, Tab
 * is pressed, and the command line is read back: it holds the completed word and nothing else.
 * A shell that is not installed skips here, saying so (CI installs all three).
 */
import { describe, expect, it } from "vitest";
import { completeAtPrompt, type Shell, shellAvailable } from "../helpers/shell-complete.js";

const CASES: [string, string][] = [
  ["svc rea\t", "svc read "],
  ["svc basin cre\t", "svc basin create "],
  ["svc read --cla\t", "svc read --clamp "],
  ["svc stream reconf\t", "svc stream reconfigure "],
  ["svc stream create svc://b/s --storage-class sta\t", "svc stream create svc://b/s --storage-class standard "],
];

for (const shell of ["zsh", "bash", "fish"] as Shell[]) {
  const available = shellAvailable(shell);
  if (!available) console.warn(`skipped: ${shell} is not installed here (CI installs it)`);
  describe.skipIf(!available)(`${shell} completion at an interactive prompt`, () => {
    it.each(CASES)(
      "%j completes to %j",
      async (typed, line) => {
        expect(await completeAtPrompt(shell, typed)).toBe(line);
      },
      30_000,
    );
  });
}
