/**
 * Bug (user trial): `svc config set/unset … --json` printed no JSON, though the README says
 * every command prints one JSON document with `--json`; `svc config get access_token` with no
 * token set said the token "is a secret" (exit 2) instead of that it is not set.
 *
 * Now `config set` prints `{"key","file","profile","value"}` (a token's value as
 * `<redacted>`), `config unset` prints `{"key","file","profile","removed"}`, `config get` of
 * an unset key prints nothing (`--json`: null) and says on stderr that it is not set.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSvc, tempHome } from "../helpers/cli.js";

describe("svc config with --json", () => {
  it("set, unset and get each print one JSON document", async () => {
    const home = tempHome();
    const file = join(home, ".config", "svc", "config.toml");
    const set = await runSvc(["config", "set", "timeout", "10s", "--json"], { home });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ key: "timeout", file, profile: null, value: "10s" });
    const prof = await runSvc(["--profile", "ci", "config", "set", "retries", "5", "--json"], { home });
    expect(JSON.parse(prof.stdout)).toEqual({ key: "retries", file, profile: "ci", value: 5 });
    const secret = await runSvc(["config", "set", "access_token", "-", "--json"], {
      home,
      stdin: "svc_secret_value_123\n",
    });
    expect(JSON.parse(secret.stdout)).toEqual({ key: "access_token", file, profile: null, value: "<redacted>" });
    expect(secret.stdout + secret.stderr).not.toContain("svc_secret_value_123");
    expect(JSON.parse((await runSvc(["config", "get", "timeout", "--json"], { home })).stdout)).toBe("10s");
    expect(JSON.parse((await runSvc(["config", "unset", "timeout", "--json"], { home })).stdout)).toEqual({
      key: "timeout",
      file,
      profile: null,
      removed: true,
    });
    expect(JSON.parse((await runSvc(["config", "unset", "timeout", "--json"], { home })).stdout)).toEqual({
      key: "timeout",
      file,
      profile: null,
      removed: false,
    });
    const unset = await runSvc(["config", "get", "timeout", "--json"], { home });
    expect([unset.code, JSON.parse(unset.stdout)]).toEqual([0, null]);
  });

  it("config get access_token with none set says it is not set, not that it is a secret", async () => {
    const r = await runSvc(["config", "get", "access_token"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("access_token is not set in");
    expect(r.stderr).not.toContain("secret");
  });
});
