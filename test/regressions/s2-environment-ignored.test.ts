/**
 * Bug (issue 42 item 4): S2_ACCOUNT_ENDPOINT, S2_BASIN_ENDPOINT and S2_ACCESS_TOKEN were ignored
 * without a word: an S2 user's shell setup made svc talk to its default local lite with no
 * token (401), or to a local lite the user did not mean.
 *
 * Now, where svc's own settings (flags, SVC_*, a profile, the config file) name no endpoint,
 * S2's endpoint variables are used, in S2's dialect, with S2_ACCESS_TOKEN as the token unless
 * svc's own settings give one. S2_ACCESS_TOKEN goes only to S2's endpoints: with svc's own
 * endpoints it is not sent, and `svc ping`, `svc config list` and -v say so. `svc ping` and
 * `svc config list` show where each setting came from.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite();
}, 30_000);
afterAll(async () => {
  await lite?.stop();
});

const s2Env = () => ({ S2_ACCOUNT_ENDPOINT: lite.url, S2_BASIN_ENDPOINT: lite.url, S2_ACCESS_TOKEN: lite.token });

describe("an S2 user's environment", () => {
  it("reaches the server S2's variables name, with S2's token and dialect", async () => {
    const basin = uniqueBasin("s2env");
    const c = await runSvc(["basin", "create", basin], { env: s2Env() });
    expect(c.code, c.stderr).toBe(0);
    const l = await runSvc(["basin", "list", "--json"], { env: s2Env() });
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toContain(basin);
  });

  it("svc ping says where the endpoint, the token and the dialect came from", async () => {
    const r = await runSvc(["ping", "-n", "1"], { env: s2Env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`endpoint  ${lite.url} (env S2_ACCOUNT_ENDPOINT)`);
    expect(r.stdout).toMatch(/token +accepted.*\(from env S2_ACCESS_TOKEN\)/);
    expect(r.stdout).toContain("settings  dialect s2 (implied by env S2_ACCOUNT_ENDPOINT)");
    expect(r.stdout).toContain("dialect s2");
    expect(r.stdout).not.toContain(lite.token);
  });

  it("svc config list shows the settings in effect and their sources, the token redacted", async () => {
    const r = await runSvc(["config", "list"], { env: s2Env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`in effect: account_endpoint = ${lite.url} (env S2_ACCOUNT_ENDPOINT)`);
    expect(r.stderr).toContain("in effect: access_token = <redacted> (env S2_ACCESS_TOKEN)");
    expect(r.stderr).toContain("in effect: dialect = s2 (implied by env S2_ACCOUNT_ENDPOINT)");
    expect(r.stderr + r.stdout).not.toContain(lite.token);
  });

  it("svc's own endpoints win, and S2's token is not sent to them (said by ping and config list)", async () => {
    const env = { ...s2Env(), SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url };
    const r = await runSvc(["ping", "-n", "1"], { env });
    expect(r.stdout).toContain(`endpoint  ${lite.url} (env SVC_ACCOUNT_ENDPOINT)`);
    expect(r.stderr).toContain("S2_ACCESS_TOKEN is ignored");
    expect(r.code).toBe(3); // no token was sent to a lite that requires one
    const c = await runSvc(["config", "list"], { env });
    expect(c.stderr).toContain("S2_ACCESS_TOKEN is ignored");
  });

  it("only one of S2's endpoints set is an error naming it (exit 2)", async () => {
    const r = await runSvc(["basin", "list"], { env: { S2_ACCOUNT_ENDPOINT: lite.url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("env S2_ACCOUNT_ENDPOINT");
  });
});
