/**
 * The built `bin/svc.js` as a child process, for everything that needs no server: help,
 * version, usage errors (exit 2) with suggestions, the config file and its commands,
 * precedence and half-set endpoints, completion scripts, `apply --schema`, and an unreachable
 * server (exit 6).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSvc, tempHome } from "../helpers/cli.js";

const UNREACHABLE = {
  SVC_ACCOUNT_ENDPOINT: "http://127.0.0.1:1",
  SVC_BASIN_ENDPOINT: "http://127.0.0.1:1",
  SVC_RETRIES: "0",
};

describe("svc cli > help, version, usage", () => {
  it("--version prints the version only", async () => {
    const r = await runSvc(["--version"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("--help and no arguments print help with examples and exit 0", async () => {
    for (const args of [["--help"], []]) {
      const r = await runSvc(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Usage: svc");
      expect(r.stdout).toContain("Examples:");
      expect(r.stdout).not.toContain("create-basin");
    }
  });

  it("every command's help has examples", async () => {
    for (const args of [
      ["basin", "create"],
      ["basin", "list"],
      ["basin", "get"],
      ["basin", "reconfigure"],
      ["basin", "delete"],
      ["stream", "create"],
      ["stream", "list"],
      ["stream", "get"],
      ["stream", "reconfigure"],
      ["stream", "delete"],
      ["check-tail"],
      ["apply"],
      ["config", "set"],
      ["completion"],
    ]) {
      const r = await runSvc([...args, "--help"]);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stdout, args.join(" ")).toContain("Examples:");
    }
  });

  it("suggests a command for a typo, exit 2", async () => {
    const r = await runSvc(["basin", "lsit"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("error: unknown command 'lsit'");
    expect(r.stderr).toContain("hint: did you mean `svc basin list`?");
  });

  it("suggests an option for a typo, exit 2", async () => {
    const r = await runSvc(["basin", "list", "--prefx", "a"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("hint: did you mean --prefix?");
  });

  it("validates names and URIs locally, exit 2", async () => {
    const bad = [
      [["basin", "create", "Bad_Name"], /invalid basin name "Bad_Name"/],
      [["stream", "create", "my-basin-01/events"], /must begin with `svc:\/\/`/],
      [["stream", "get", "svc://my-basin-01"], /missing stream name/],
      [["check-tail", "http://my-basin-01/s"], /invalid URI scheme/],
      [["basin", "create", "my-basin-01", "--retention", "0s"], /retention must be greater than zero/],
      [["basin", "create", "my-basin-01", "--storage-class", "fast"], /Allowed choices are standard, express/],
      [["basin", "reconfigure", "my-basin-01"], /nothing to change/],
      [["basin", "create", "my-basin-01", "--ensure", "--if-not-exists"], /cannot be used with/],
    ] as const;
    for (const [args, msg] of bad) {
      const r = await runSvc([...args], { env: UNREACHABLE });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(msg);
      expect(r.stdout).toBe("");
    }
  });

  it("refuses to delete without --yes when nobody can be asked", async () => {
    const r = await runSvc(["basin", "delete", "my-basin-01"], { env: UNREACHABLE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("refusing without --yes");
  });

  it("an unreachable server is exit 6 with a hint", async () => {
    const r = await runSvc(["basin", "list"], { env: UNREACHABLE });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("error: Failed to list basins: cannot connect to http://127.0.0.1:1");
    expect(r.stderr).toContain("(connect_failed)");
    expect(r.stderr).toMatch(/^hint: /m);
  });

  it("--json adds a JSON error line on stderr", async () => {
    const r = await runSvc(["basin", "list", "--json"], { env: UNREACHABLE });
    expect(r.code).toBe(6);
    const last = r.stderr.trim().split("\n").at(-1)!;
    expect(JSON.parse(last)).toMatchObject({
      error: { code: "connect_failed", operation: "basin list", exit_code: 6 },
    });
  });

  it("-v logs requests on stderr without the token", async () => {
    const r = await runSvc(["-v", "basin", "list", "--access-token", "sekrit-123"], { env: UNREACHABLE });
    expect(r.stderr).toContain("GET http://127.0.0.1:1/v1/basins");
    expect(r.stderr).toContain("access token <redacted> (flag --access-token)");
    expect(r.stderr).not.toContain("sekrit-123");
  });
});

describe("svc cli > configuration", () => {
  it("config set/get/list/unset/path with a 0600 file in a 0700 directory", async () => {
    const home = tempHome();
    const path = join(home, ".config", "svc", "config.toml");
    expect((await runSvc(["config", "path"], { home })).stdout).toBe(`${path}\n`);
    const set = await runSvc(["config", "set", "account_endpoint", "http://127.0.0.1:9"], { home });
    expect(set).toMatchObject({ code: 0, stdout: "" });
    expect(set.stderr).toContain("account_endpoint set");
    expect((await runSvc(["config", "set", "access_token", "tok-secret-1"], { home })).code).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, ".config", "svc")).mode & 0o777).toBe(0o700);
    expect((await runSvc(["config", "get", "account_endpoint"], { home })).stdout).toBe("http://127.0.0.1:9\n");
    const list = await runSvc(["config", "list"], { home });
    expect(list.stdout).toBe("account_endpoint = http://127.0.0.1:9\naccess_token = <redacted>\n");
    const get = await runSvc(["config", "get", "access_token"], { home });
    expect(get.code).toBe(2);
    expect(get.stderr).toContain("--show-secret");
    expect(get.stderr + get.stdout).not.toContain("tok-secret-1");
    expect((await runSvc(["config", "get", "access_token", "--show-secret"], { home })).stdout).toBe("tok-secret-1\n");
    expect((await runSvc(["config", "unset", "access_token"], { home })).code).toBe(0);
    expect(readFileSync(path, "utf8")).toBe('account_endpoint = "http://127.0.0.1:9"\n');
    expect((await runSvc(["config", "get", "compression"], { home })).stdout).toBe("");
  });

  it("reads a secret from stdin with `-`", async () => {
    const home = tempHome();
    expect((await runSvc(["config", "set", "access_token", "-"], { home, stdin: "from-stdin\n" })).code).toBe(0);
    expect((await runSvc(["config", "get", "access_token", "--show-secret"], { home })).stdout).toBe("from-stdin\n");
  });

  it("validates values and keys", async () => {
    const home = tempHome();
    const r1 = await runSvc(["config", "set", "compression", "lz4"], { home });
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("compression must be one of none, gzip, zstd");
    const r2 = await runSvc(["config", "set", "colour", "x"], { home });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('unknown config key "colour"');
  });

  it("writes and reads profiles with --profile", async () => {
    const home = tempHome();
    expect((await runSvc(["--profile", "staging", "config", "set", "retries", "4"], { home })).code).toBe(0);
    expect((await runSvc(["config", "get", "retries", "--profile", "staging"], { home })).stdout).toBe("4\n");
    expect((await runSvc(["config", "get", "retries"], { home })).stdout).toBe("");
    expect(readFileSync(join(home, ".config", "svc", "config.toml"), "utf8")).toBe("[profiles.staging]\nretries = 4\n");
    const json = await runSvc(["config", "list", "--json"], { home, env: { SVC_PROFILE: "staging" } });
    expect(JSON.parse(json.stdout)).toMatchObject({ settings: { retries: 4 }, profiles: ["staging"] });
  });

  it("a config file that does not parse is fatal and names the path", async () => {
    const home = tempHome();
    const dir = join(home, ".config", "svc");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.toml"), "account_endpoint = \n");
    const r = await runSvc(["basin", "list"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot parse config file ${join(dir, "config.toml")}: line 1: missing value`);
    // and config set does not silently overwrite it
    const s = await runSvc(["config", "set", "retries", "1"], { home });
    expect(s.code).toBe(2);
    expect(readFileSync(join(dir, "config.toml"), "utf8")).toBe("account_endpoint = \n");
  });

  it("half-set endpoints are a usage error (exit 2) from any source", async () => {
    const r1 = await runSvc(["basin", "list"], { env: { SVC_ACCOUNT_ENDPOINT: "http://127.0.0.1:1" } });
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain(
      "the account endpoint comes from env SVC_ACCOUNT_ENDPOINT, but the basin endpoint is not set",
    );
    const r2 = await runSvc(["--basin-endpoint", "http://127.0.0.1:1", "basin", "list"]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("basin endpoint comes from flag --basin-endpoint");
  });

  it("SVC_CONFIG and --config choose the file", async () => {
    const home = tempHome();
    const file = join(home, "ci.toml");
    expect((await runSvc(["config", "set", "retries", "1"], { home, env: { SVC_CONFIG: file } })).code).toBe(0);
    expect((await runSvc(["--config", file, "config", "get", "retries"], { home })).stdout).toBe("1\n");
  });
});

describe("svc cli > completion and schema", () => {
  it.each(["bash", "zsh", "fish"])("prints a %s completion script covering the command tree", async (shell) => {
    const r = await runSvc(["completion", shell]);
    expect(r.code).toBe(0);
    for (const word of ["basin", "stream", "check-tail", "apply", "reconfigure", "storage-class", "standard"])
      expect(r.stdout).toContain(word);
    expect(r.stdout).not.toContain("create-basin");
  });

  it("rejects an unknown shell", async () => {
    const r = await runSvc(["completion", "tcsh"]);
    expect(r.code).toBe(2);
  });

  it("apply --schema prints a JSON Schema", async () => {
    const r = await runSvc(["apply", "--schema"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ title: "svc apply spec", required: ["basins"] });
  });

  it("apply with a malformed spec is exit 7 naming the place", async () => {
    const home = tempHome();
    const file = join(home, "spec.json");
    writeFileSync(file, JSON.stringify({ basins: [{ name: "my-basin-01", config: { bogus: 1 } }] }));
    const r = await runSvc(["apply", "-f", file, "--dry-run"], { home, env: UNREACHABLE });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`${file}: basins[0].config: unknown field "bogus"`);
    const r2 = await runSvc(["apply", "-f", "-", "--dry-run"], { stdin: "{not json", env: UNREACHABLE });
    expect(r2.code).toBe(7);
    expect(r2.stderr).toContain("<stdin>: not valid JSON");
  });
});
