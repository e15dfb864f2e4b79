/**
 * Bug (user trial): `svc help nonsense` printed the whole help with exit 0, and
 * `svc help basin lsit` printed basin's help with exit 0 (commander's help command looks up one
 * word and falls back to the help it has), while `svc nonsense` is a usage error. A script
 * checking `svc help X` could not tell a real command from a typo.
 *
 * Expected: `svc help WORDS…` prints the help of the command those words name, or a guide
 * (`svc help records`), or fails like any unknown command: exit 2, nothing on stdout, a
 * did-you-mean among the commands there and, at the top, the guides.
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

describe("svc help of something that does not exist", () => {
  it("svc help nonsense: exit 2, no help printed", async () => {
    const r = await runSvc(["help", "nonsense"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "error: no command or guide is called 'nonsense'\nhint: `svc help topics` lists the guides, `svc --help` the commands\n",
    );
  });

  it("svc help basin lsit: exit 2 with a did-you-mean", async () => {
    const r = await runSvc(["help", "basin", "lsit"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "error: unknown command 'lsit'\nhint: did you mean `svc help basin list`? (`svc basin --help` lists the commands)\n",
    );
  });

  it("a typo of a guide or a command at the top suggests it", async () => {
    const guide = await runSvc(["help", "record"]);
    expect(guide.code).toBe(2);
    expect(guide.stderr).toContain("did you mean `svc help records`?");
    const command = await runSvc(["help", "apend"]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("did you mean `svc help append`?");
  });

  it("what exists still prints, with exit 0: a command, a subcommand, a guide, the globals", async () => {
    for (const words of [[], ["basin"], ["basin", "create"], ["token", "ls"], ["records"], ["globals"], ["topics"]]) {
      const r = await runSvc(["help", ...words]);
      expect([words, r.code, r.stderr]).toEqual([words, 0, ""]);
      expect(r.stdout.length).toBeGreaterThan(100);
    }
    const sub = await runSvc(["help", "basin", "create"]);
    expect(sub.stdout).toContain("Usage: svc basin create");
    expect(sub.stdout).toContain("Examples:");
  });
});
