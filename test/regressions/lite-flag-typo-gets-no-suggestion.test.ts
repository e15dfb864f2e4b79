/**
 * Bug (issue 45, item 8): `svc lite --prot 0` said "Unknown option '--prot'" with the hint
 * "run `svc lite --help` for usage", where every other svc command suggests the flag a typo
 * most likely meant (`svc basin list --limt 3`: "did you mean --limit?"). lite parses its own
 * flags (node:util parseArgs), away from commander and its suggestions.
 *
 * Fix: an unknown flag of svc lite gets the nearest of the flags `svc lite --help` lists, by
 * the one did-you-mean rule of svc (format/suggest.ts), in the hint other commands print; a
 * word near none of them keeps the plain hint. Exit 2 as before.
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

describe("a typo of a flag of svc lite", () => {
  it.each([
    [["--prot", "0"], "--port"],
    [["--prot=0"], "--port"],
    [["--in-memroy"], "--in-memory"],
    [["--data-dri", "x"], "--data-dir"],
    [["--no-atuh"], "--no-auth"],
    [["--root-token-fiel", "x"], "--root-token-file"],
  ])("svc lite %j suggests %s", async (args, flag) => {
    const r = await runSvc(["lite", ...args]);
    expect(r.code, r.stderr).toBe(2);
    const word = args[0]!.split("=")[0]!;
    expect(r.stderr).toBe(
      `error: svc lite: Unknown option '${word}'\nhint: did you mean ${flag}? (\`svc lite --help\` for usage)\n`,
    );
  });

  it("as svc's other commands do, in the same words", async () => {
    const r = await runSvc(["basin", "list", "--limt", "3"]);
    expect(r.stderr).toContain("hint: did you mean --limit? (`svc basin list --help` for usage)");
  });

  it("a word near no flag keeps the plain hint", async () => {
    const r = await runSvc(["lite", "--zzzzzzzz"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("hint: run `svc lite --help` for usage");
    expect(r.stderr).not.toContain("did you mean");
  });
});
