/**
 * Bug (user trial): `svc ping` (and error hints) nested parentheses: where a setting came from
 * is shown in parentheses, and some sources held their own, e.g.
 * `endpoint  http://127.0.0.1:4243 (default (local svc lite))`.
 *
 * Expected: sources hold no parentheses of their own (`default: the local svc lite`,
 * `profile local of FILE`, `svc lite's root token in FILE`), so no line nests them.
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

describe("svc ping with nothing configured", () => {
  it("prints no nested parentheses", async () => {
    // Nothing answers at the default address here (a fresh home, no lite): the lines still print.
    const r = await runSvc(["ping", "-n", "1", "-v", "--retries", "0"]);
    const text = `${r.stdout}\n${r.stderr}`;
    expect(text).toContain("default: the local svc lite");
    expect(text).not.toMatch(/\([^()]*\(/);
  });
});
