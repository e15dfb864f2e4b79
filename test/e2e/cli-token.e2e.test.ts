/**
 * `svc token create|list|revoke` as a child process against a real svc lite, and the CLI's own
 * commands under scoped tokens: exit 3 on 401 and 403 with a hint naming where the token
 * came from, `apply` with a token limited to one basin, `read` with a read-only token. No
 * secret minted here ever appears on stderr, with or without -v.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunOptions, type RunResult, runSvc } from "../helpers/cli.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
let env: Record<string, string>;
let dir: string;
const minted: string[] = [];
const stderrs: string[] = [];

async function svc(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await runSvc(args, { ...opts, env: { ...env, ...opts.env } });
  stderrs.push(r.stderr);
  return r;
}

async function create(id: string, flags: string[]): Promise<string> {
  const r = await svc(["token", "create", id, ...flags]);
  expect(r.code, r.stderr).toBe(0);
  const token = r.stdout.trim();
  expect(token).toMatch(/^svc\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  minted.push(token);
  return token;
}

beforeAll(async () => {
  lite = await startLite();
  env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
  dir = mkdtempSync(join(tmpdir(), "svc-clitoken-"));
});

afterAll(async () => {
  await lite?.stop();
  rmSync(dir, { recursive: true, force: true });
  const all = stderrs.join("\n") + (lite?.stderr() ?? "");
  for (const s of [lite?.token, ...minted]) if (s) expect(all.includes(s), "a secret on stderr").toBe(false);
});

describe("svc token", () => {
  it("create prints only the token (or --json, --env); list shows scopes and never a secret; revoke", async () => {
    const token = await create("cli/reader", [
      "--basins-prefix",
      "cli-",
      "--streams-prefix",
      "",
      "--op-groups",
      "stream=r",
      "--expires-in",
      "1d",
    ]);
    const json = await svc(["token", "create", "cli/json", "--ops", "list_basins,READ", "--json"]);
    expect(json.code).toBe(0);
    const secret = JSON.parse(json.stdout).access_token as string;
    minted.push(secret);
    const envLine = await svc(["token", "create", "cli/env", "--ops", "list-basins", "--env"]);
    expect(envLine.stdout).toMatch(/^export SVC_ACCESS_TOKEN=svc\.\S+\n$/);
    minted.push(envLine.stdout.trim().split("=")[1]!);

    const list = await svc(["token", "list", "--prefix", "cli/", "--json"]);
    expect(list.code).toBe(0);
    const items = JSON.parse(list.stdout) as {
      id: string;
      scope: { ops: string[]; basins: unknown; op_groups: { stream: unknown } };
      expires_at: string | null;
    }[];
    expect(items.map((t) => t.id)).toEqual(["cli/env", "cli/json", "cli/reader"]);
    expect(items[1]!.scope.ops).toEqual(["list-basins", "read"]);
    expect(items[2]).toMatchObject({
      scope: { basins: { prefix: "cli-" }, op_groups: { stream: { read: true, write: false } } },
    });
    expect(Date.parse(items[2]!.expires_at!)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const table = await svc(["token", "list", "--prefix", "cli/"]);
    expect(table.stdout).toMatch(/^ID\s+BASINS\s+STREAMS/);
    expect(table.stdout).toContain("cli/reader");
    for (const s of [token, secret]) expect(table.stdout + list.stdout).not.toContain(s);
    const nd = await svc(["token", "list", "--prefix", "cli/", "--ndjson"]);
    expect(
      nd.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual(["cli/env", "cli/json", "cli/reader"]);

    const revoke = await svc(["token", "revoke", "cli/json", "--yes"]);
    expect([revoke.code, revoke.stderr]).toEqual([0, '✓ access token "cli/json" revoked\n']);
    const gone = await svc(["basin", "list"], { env: { SVC_ACCESS_TOKEN: secret } });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain("401 authn");
    expect(gone.stderr).toContain("hint: authentication failed: check the access token from env SVC_ACCESS_TOKEN");
    expect((await svc(["token", "revoke", "cli/json", "--yes"])).code).toBe(4);
  });

  it("checks flags before any request: did-you-mean for ops, ⊕ pairs, --op-groups syntax, a grant required (exit 2)", async () => {
    const cases: [string[], RegExp][] = [
      [["--ops", "apend"], /unknown operation "apend"; did you mean append\?/],
      [["--ops", "read", "--basins-prefix", "a", "--basins-exact", "b"], /cannot be used (together|with)/],
      [["--op-groups", "stream=x"], /--op-groups: expected LEVEL=r\|w\|rw/],
      [["--basins-prefix", "a"], /would grant no operation/],
      [
        ["--ops", "read", "--auto-prefix-streams", "--streams-exact", "s"],
        /--auto-prefix-streams needs --streams-prefix/,
      ],
      [["--ops", "read", "--expires-at", "2001-01-01T00:00:00Z"], /must be in the future/],
    ];
    for (const [flags, message] of cases) {
      const r = await svc(["token", "create", "bad", ...flags]);
      expect([r.code, r.stdout], flags.join(" ")).toEqual([2, ""]);
      expect(r.stderr).toMatch(message);
    }
  });

  it("--from-file takes the request body; flags given too override it", async () => {
    const file = join(dir, "spec.json");
    writeFileSync(
      file,
      JSON.stringify({
        scope: { basins: { exact: "file-basin-1" }, ops: ["read"] },
        expires_at: "2099-01-01T00:00:00Z",
      }),
    );
    await create("cli/file", ["--from-file", file, "--ops", "read,check-tail"]);
    const t = JSON.parse((await svc(["token", "list", "--prefix", "cli/file", "--json"])).stdout)[0];
    expect(t).toMatchObject({
      expires_at: "2099-01-01T00:00:00.000Z",
      scope: { basins: { exact: "file-basin-1" }, ops: ["read", "check-tail"] },
    });
  });
});

describe("the CLI under scoped tokens", () => {
  it("a read-only token reads (0) and cannot append (3, with the operation it lacks)", async () => {
    const basin = uniqueBasin("cli-ro");
    expect((await svc(["basin", "create", basin, "--create-stream-on-append"])).code).toBe(0);
    expect((await svc(["append", `svc://${basin}/s`], { stdin: "one\ntwo\n" })).code).toBe(0);
    const ro = await create("cli/ro", ["--basins-exact", basin, "--streams-prefix", "", "--op-groups", "stream=r"]);
    const read = await svc(["read", `svc://${basin}/s`, "--from-beginning", "--no-follow", "-v"], {
      env: { SVC_ACCESS_TOKEN: ro },
    });
    expect([read.code, read.stdout]).toEqual([0, "one\ntwo\n"]);
    const append = await svc(["append", `svc://${basin}/s`], { stdin: "three\n", env: { SVC_ACCESS_TOKEN: ro } });
    expect(append.code).toBe(3);
    expect(append.stderr).toContain("does not permit operation `append` (403 permission_denied)");
    expect(append.stderr).toContain(
      "hint: permission denied: check that the access token from env SVC_ACCESS_TOKEN allows this operation and resource",
    );
    const other = await svc(["read", `svc://${uniqueBasin("cli-other")}/s`, "--no-follow"], {
      env: { SVC_ACCESS_TOKEN: ro },
    });
    expect(other.code).toBe(3);
    expect(other.stderr).toContain("does not cover basin");
  });

  it("apply with a token that may only touch one basin; basin list shows only that basin", async () => {
    const basin = uniqueBasin("cli-apply");
    const scoped = await create("cli/apply", [
      "--basins-exact",
      basin,
      "--streams-prefix",
      "",
      "--op-groups",
      "account=rw,basin=rw,stream=rw",
    ]);
    const file = join(dir, "apply.json");
    writeFileSync(file, JSON.stringify({ basins: [{ name: basin, streams: [{ name: "events" }] }] }));
    const first = await svc(["apply", "-f", file, "-v"], { env: { SVC_ACCESS_TOKEN: scoped } });
    expect(first.code, first.stderr).toBe(0);
    const again = await svc(["apply", "-f", file, "--dry-run", "--exit-code"], { env: { SVC_ACCESS_TOKEN: scoped } });
    expect(again.code, again.stderr).toBe(0);
    const list = await svc(["basin", "list"], { env: { SVC_ACCESS_TOKEN: scoped } });
    expect(list.stdout.trim().split("\n")).toEqual([basin]);
    writeFileSync(file, JSON.stringify({ basins: [{ name: uniqueBasin("cli-apply-x") }] }));
    const outside = await svc(["apply", "-f", file], { env: { SVC_ACCESS_TOKEN: scoped } });
    expect(outside.code).toBe(3);
  });
});
