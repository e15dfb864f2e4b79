/**
 * What peers' users reach for, added: `svc stream delete --wait` (a CI reset loop needs no
 * sleep), a persistent current profile (`svc config use-profile`, as `rpk profile use` or
 * `nats context select`), and a record from the command line (`svc append URI hello world`,
 * `--body`, as `nats pub subj hello`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc, tempHome } from "../helpers/cli.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("svc stream delete --wait", () => {
  it("returns once the name can be created again", async () => {
    const uri = await d.newStream("reset");
    expect((await d.svc(["append", uri, "x"])).code).toBe(0);
    for (let round = 0; round < 3; round++) {
      const del = await d.svc(["stream", "delete", uri, "--yes", "--wait"]);
      expect(del.code, del.stderr).toBe(0);
      expect(del.stderr).toContain(`stream ${uri} deleted`);
      const again = await d.svc(["stream", "create", uri]);
      expect(again.code, again.stderr).toBe(0);
    }
  });
});

describe("svc config use-profile", () => {
  it("makes a profile current, until --profile, SVC_PROFILE or --none say otherwise", async () => {
    const home = tempHome();
    const config = join(home, "config.toml");
    writeFileSync(
      config,
      `[profiles.here]\naccount_endpoint = "${d.lite.url}"\nbasin_endpoint = "${d.lite.url}"\naccess_token = "${d.lite.token}"\n` +
        `[profiles.nowhere]\naccount_endpoint = "http://127.0.0.1:9"\nbasin_endpoint = "http://127.0.0.1:9"\n`,
      { mode: 0o600 },
    );
    const svc = (args: string[], env: Record<string, string> = {}) =>
      runSvc(args, { home, env: { SVC_CONFIG: config, ...env } });
    const use = await svc(["config", "use-profile", "here"]);
    expect(use.code, use.stderr).toBe(0);
    expect((await svc(["config", "use-profile"])).stdout).toBe("here\n");
    const list = await svc(["basin", "list"]);
    expect([list.code, list.stdout]).toEqual([0, expect.stringContaining(d.basin)]);
    expect((await svc(["--profile", "nowhere", "basin", "list", "--retries", "0"])).code).toBe(6);
    expect((await svc(["basin", "list", "--retries", "0"], { SVC_PROFILE: "nowhere" })).code).toBe(6);
    const missing = await svc(["config", "use-profile", "nope"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('profile "nope" is not defined');
    expect((await svc(["config", "use-profile", "--none"])).code).toBe(0);
    expect((await svc(["config", "use-profile"])).stdout).toBe("");
  });
});

describe("a record from the command line", () => {
  it("words after the URI are one record; --body is one record each; stdin is not read", async () => {
    const uri = await d.newStream("body");
    const words = await d.svc(["append", uri, "hello", "world"], { stdin: "never read\n" });
    expect(words.code, words.stderr).toBe(0);
    const bodies = await d.svc(["append", uri, "--body", "one", "--body", "two words"]);
    expect(bodies.code, bodies.stderr).toBe(0);
    const json = await d.svc(["append", uri, "--format", "json", "--body", '{"headers":[["k","v"]],"body":"j"}']);
    expect(json.code, json.stderr).toBe(0);
    const back = await d.svc(["read", uri, "-s", "0", "-e"]);
    expect(back.stdout).toBe("hello world\none\ntwo words\nj\n");
    const both = await d.svc(["append", uri, "x", "--body", "y"]);
    expect(both.code).toBe(2);
    const withFile = await d.svc(["append", uri, "--body", "y", "-i", "-"]);
    expect(withFile.code).toBe(2);
  });
});
