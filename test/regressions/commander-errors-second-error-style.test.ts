/**
 * Bug (user trial): two error styles coexisted. svc's own errors printed `error: …` and a
 * `hint: …` line; commander's parse errors (a missing argument, an unknown option or command,
 * a value outside the choices) printed `error: …` and then `(run with --help for usage)` or
 * `(Did you mean list?)`. Now every error is `error:` plus one `hint:` line naming the command
 * (and the suggestion, as a command to run).
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

describe("commander's parse errors in svc's style", () => {
  it.each([
    [["read"], "error: missing required argument 'uri'", "hint: run `svc read --help` for usage"],
    [
      ["basin", "list", "--prefx", "a"],
      "error: unknown option '--prefx'",
      "hint: did you mean --prefix? (`svc basin list --help` for usage)",
    ],
    [
      ["basin", "lsit"],
      "error: unknown command 'lsit'",
      "hint: did you mean `svc basin list`? (`svc basin --help` lists the commands)",
    ],
    [
      ["basin", "list", "--compression", "lz4"],
      "error: option '--compression <alg>' argument 'lz4' is invalid. Allowed choices are none, gzip, zstd.",
      "hint: run `svc basin list --help` for usage",
    ],
  ])("svc %j", async (args, error, hint) => {
    const r = await runSvc(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`${error}\n${hint}\n`);
  });

  it("--json adds the one JSON line after them", async () => {
    const r = await runSvc(["read", "--json"]);
    expect(r.stderr.split("\n").slice(0, 2)).toEqual([
      "error: missing required argument 'uri'",
      "hint: run `svc read --help` for usage",
    ]);
    expect(JSON.parse(r.stderr.split("\n")[2]!)).toEqual({
      error: { status: null, code: "usage", message: "missing required argument 'uri'", exit_code: 2 },
    });
  });
});
