/**
 * Bug (user trial): every subcommand's `--help` repeated the ~25 lines of global options
 * (access token, endpoints, timeout, colours, encryption key…) under its own. Now a
 * subcommand's help shows one line pointing to `svc help globals`, which lists them once.
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

describe("global options in help", () => {
  it("a subcommand's help has its own options and one line about the global ones", async () => {
    const r = await runSvc(["stream", "get", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("Global Options:");
    expect(r.stdout).not.toMatch(/^\s+--access-token/m);
    expect(r.stdout).not.toMatch(/^\s+--encryption-key-file/m);
    expect(r.stdout.match(/svc help globals/g)).toHaveLength(1);
    expect(r.stdout.split("\n").length).toBeLessThan(20);
  });

  it("svc help globals lists every global option once", async () => {
    const r = await runSvc(["help", "globals"]);
    expect(r.code).toBe(0);
    for (const flag of [
      "--access-token",
      "--account-endpoint",
      "--basin-endpoint",
      "--profile",
      "--config",
      "--json",
      "--quiet",
      "--verbose",
      "--no-color",
      "--timeout",
      "--retries",
      "--compression",
      "--insecure",
      "--dialect",
      "--encryption-key",
      "--encryption-key-file",
    ]) {
      expect(r.stdout.match(new RegExp(`^  (-\\w, )?${flag}(?=[ ,<]|$)`, "gm")), flag).toHaveLength(1);
    }
  });
});
