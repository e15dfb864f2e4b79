/**
 * Bug (user trial): `svc token list` did not mark expired tokens: an expired token looked like
 * a live one, its date the only clue. Now its EXPIRES column says `(expired)`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, type Lite, startLite } from "../helpers/lite.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite();
}, 30_000);
afterAll(async () => {
  await lite?.stop();
});

describe("svc token list", () => {
  it("marks a token whose expiry has passed", async () => {
    const env = cliEnv(lite);
    expect(
      (await runSvc(["token", "create", "exp/soon", "--ops", "account-metrics", "--expires-in", "1s"], { env })).code,
    ).toBe(0);
    expect(
      (await runSvc(["token", "create", "exp/later", "--ops", "account-metrics", "--expires-in", "1d"], { env })).code,
    ).toBe(0);
    await new Promise((r) => setTimeout(r, 1_200));
    const r = await runSvc(["token", "list", "--prefix", "exp/"], { env });
    expect(r.code, r.stderr).toBe(0);
    const line = (id: string): string => r.stdout.split("\n").find((l) => l.startsWith(id)) ?? "";
    expect(line("exp/soon")).toContain("(expired)");
    expect(line("exp/later")).not.toContain("(expired)");
  });
});
