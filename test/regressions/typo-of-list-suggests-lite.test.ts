/**
 * Bug (user trial): `svc lsit` and `svc list` answered ``did you mean `svc lite`?``: the one
 * suggestion offered for a typo of a command that lists was the command that starts a server,
 * while the README promises `svc basin list`. Commander's suggestion compared the word with the
 * top-level names only, by plain edit distance (`lsit` is two edits from both `list` and `lite`).
 *
 * Expected: suggestions rank what the user most likely meant: a swap of two letters is one
 * edit, the verbs of every group count (`list` is `svc basin list`, `svc stream list`…), a
 * command that starts something (`lite`, `bench`) is offered only when nothing else is near,
 * and an alias is never offered beside its own command. Exit 2 throughout.
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

describe("did-you-mean for unknown commands", () => {
  it.each(["lsit", "list", "lis", "lit", "liet"])("svc %s suggests svc basin list, never svc lite", async (word) => {
    const r = await runSvc([word]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: unknown command '${word}'`);
    expect(r.stderr).toContain("hint: did you mean `svc basin list`? (or `svc stream list`");
    expect(r.stderr).not.toContain("svc lite");
  });

  it("a verb of several groups names them, most used first", async () => {
    const r = await runSvc(["creat"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "hint: did you mean `svc basin create`? (or `svc stream create`, `svc token create`; `svc --help` lists the commands)",
    );
  });

  it("under a group, its own commands; an alias is not offered beside its command", async () => {
    const r = await runSvc(["basin", "lst"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: unknown command 'lst'\nhint: did you mean `svc basin list`? (`svc basin --help` lists the commands)\n",
    );
  });

  it("the S2 CLI's hidden spellings lead to the svc command they stand for", async () => {
    const r = await runSvc(["list-basin"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("hint: did you mean `svc basin list`?");
  });

  it("lite and bench are still offered for their own typos", async () => {
    expect((await runSvc(["litr"])).stderr).toContain("did you mean `svc lite`?");
    expect((await runSvc(["benhc"])).stderr).toContain("did you mean `svc bench`?");
  });

  it("a word near nothing gets no guess", async () => {
    const r = await runSvc(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown command 'frobnicate'\nhint: `svc --help` lists the commands\n");
  });
});
