/**
 * Bug (user trial): `svc token list` did not mark expired tokens: an expired token looked like
 * a live one, its date the only clue. Now its EXPIRES column says `(expired)`.
 *
 * The CLI judges expiry by its own clock. Here lite's clock is a minute behind it (lite's test
 * seam SVC_LITE_TEST_CLOCK_SKEW_MS, storage/wall-clock.ts), so lite issues a token whose expiry
 * is, by the CLI's clock, a second past: nothing waits for a token to expire.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite({ env: { SVC_LITE_TEST_FAULTS: "enabled", SVC_LITE_TEST_CLOCK_SKEW_MS: "-60000" } });
}, 30_000);
afterAll(async () => {
  await lite?.stop();
});

describe("svc token list", () => {
  it("marks a token whose expiry has passed", async () => {
    const env = cliEnv(lite);
    // Issued through the API: `svc token create` refuses an expiry its own clock has passed.
    const soon = await liteClient(lite).call("POST", "/v1/access-tokens", {
      json: {
        id: "exp/soon",
        scope: { ops: ["account-metrics"] },
        expires_at: new Date(Date.now() - 1_000).toISOString(),
      },
    });
    expect(soon.status, soon.text()).toBe(201);
    expect(
      (await runSvc(["token", "create", "exp/later", "--ops", "account-metrics", "--expires-in", "1d"], { env })).code,
    ).toBe(0);
    const r = await runSvc(["token", "list", "--prefix", "exp/"], { env });
    expect(r.code, r.stderr).toBe(0);
    const line = (id: string): string => r.stdout.split("\n").find((l) => l.startsWith(id)) ?? "";
    expect(line("exp/soon")).toContain("(expired)");
    expect(line("exp/later")).not.toContain("(expired)");
  });
});
