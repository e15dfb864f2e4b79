/**
 * Bug (user trial): the README's and `svc token create --help`'s example scoped a tenant's
 * token with `--basins-exact prod`, a name no basin can have (basin names are 8 to 48
 * characters), and svc issued such tokens without a word, though it warns for a token whose
 * operations reach nothing.
 *
 * Expected: the example names a basin that can exist, and an exact basin, stream or token id
 * that no name can be (or a prefix no name can start with) gets a warning naming the flag and
 * the rule; the token is still issued, as for the other warning.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impossibleNames } from "../../src/cli/commands/token/token-reach.js";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("a token scoped to a name that cannot exist", () => {
  it("svc token create --basins-exact prod warns, and still issues the token", async () => {
    const r = await d.svc(["token", "create", "tenant-42", "--basins-exact", "prod", "--op-groups", "stream=rw"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^svc\./);
    expect(r.stderr).toContain(
      '! access token "tenant-42": --basins-exact matches nothing: no basin name can be "prod" (invalid basin name "prod": must be 8 to 48 characters long (got 4))',
    );
  });

  it("a valid exact name or prefix gets no such warning", async () => {
    const r = await d.svc([
      "token",
      "create",
      "ok-1",
      "--basins-exact",
      d.basin,
      "--streams-prefix",
      "app-",
      "--op-groups",
      "stream=r",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("matches nothing");
  });

  it("prefixes no name can start with, and exact streams and token ids", () => {
    expect(
      impossibleNames({
        basins: { prefix: "Prod-" },
        streams: { exact: ".." },
        access_tokens: { exact: "" },
      }),
    ).toEqual([
      '--basins-prefix "Prod-" matches nothing: basin names hold only lowercase letters, digits and hyphens',
      '--streams-exact matches nothing: no stream name can be ".." (invalid stream name "..": must not be "." or "..")',
    ]);
    expect(impossibleNames({ basins: { prefix: "" }, streams: { prefix: "" } })).toEqual([]);
  });

  it("the examples name a basin that can exist", async () => {
    const help = await d.svc(["token", "create", "--help"]);
    expect(help.stdout).not.toMatch(/--basins-exact prod\b/);
  });
});
