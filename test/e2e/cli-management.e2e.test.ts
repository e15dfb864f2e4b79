/**
 * The built `bin/svc.js` against a real svc lite (port 0, temp data dir): basin and stream
 * management, check-tail, the S2 CLI's spellings as aliases, auth, quiet and JSON output. Asserts
 * stdout, stderr and exit codes (not found 4, usage 2, conflict 5, auth 3).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunOptions, runSvc } from "../helpers/cli.js";
import { startLite } from "../helpers/lite.js";

let lite: Awaited<ReturnType<typeof startLite>>;
let env: Record<string, string>;
let n = 0;
const uniq = (p = "cli") => `${p}-${process.pid}-${Date.now().toString(36)}-${n++}`;
const svc = (args: string[], opts: RunOptions = {}) => runSvc(args, { ...opts, env: { ...env, ...opts.env } });

beforeAll(async () => {
  lite = await startLite();
  env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
});
afterAll(async () => {
  await lite?.stop();
});

describe("svc basin", () => {
  it("create, then create again (5), --if-not-exists (0), get (0), missing (4)", async () => {
    const b = uniq();
    const c1 = await svc(["basin", "create", b]);
    expect(c1).toMatchObject({ code: 0, stdout: "" });
    expect(c1.stderr).toBe(`✓ basin svc://${b} created\n`);
    const c2 = await svc(["basin", "create", `svc://${b}`]);
    expect(c2.code).toBe(5);
    expect(c2.stdout).toBe("");
    expect(c2.stderr).toMatch(
      new RegExp(`^error: Failed to create basin svc://${b}: .* \\(409 resource_already_exists\\)\\nhint: `),
    );
    const c3 = await svc(["basin", "create", b, "--if-not-exists"]);
    expect(c3.code).toBe(0);
    expect(c3.stderr).toContain("already exists");
    const get = await svc(["basin", "get", b, "--json"]);
    expect(get.code).toBe(0);
    expect(JSON.parse(get.stdout)).toMatchObject({
      name: b,
      state: "active",
      config: { create_stream_on_append: false },
    });
    const missing = await svc(["basin", "get", uniq("nope")]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("(404 basin_not_found)");
  });

  it("create with every config flag, --json, then reconfigure only what is given", async () => {
    const b = uniq();
    const c = await svc([
      "basin",
      "create",
      b,
      "--json",
      "--storage-class",
      "standard",
      "--retention",
      "2d",
      "--timestamping-mode",
      "client-require",
      "--timestamping-uncapped",
      "--delete-on-empty-min-age",
      "1h",
      "--create-stream-on-append",
      "--create-stream-on-read",
      "--scope",
      "cloud:us-east-1",
      "--wait",
    ]);
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ name: b, state: "active", result: "created" });
    const get = JSON.parse((await svc(["basin", "get", b, "--json"])).stdout);
    expect(get.config).toMatchObject({
      create_stream_on_append: true,
      create_stream_on_read: true,
      default_stream_config: {
        storage_class: "standard",
        retention_policy: { age: 172_800 },
        timestamping: { mode: "client-require", uncapped: true },
        delete_on_empty: { min_age_secs: 3600 },
      },
    });
    const r = await svc(["basin", "reconfigure", b, "--retention", "infinite", "--no-create-stream-on-read"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`✓ basin svc://${b} reconfigured\n`);
    expect(r.stdout).toMatch(/^default_stream_config\.retention_policy\s+infinite$/m);
    expect(r.stdout).toMatch(/^create_stream_on_read\s+false$/m);
    expect(r.stdout).toMatch(/^create_stream_on_append\s+true$/m);
    const human = await svc(["basin", "get", b]);
    expect(human.stdout).toMatch(/^name\s+/m);
    expect(human.stdout).toMatch(/^default_stream_config\.storage_class\s+standard$/m);
  });

  it("--ensure creates then updates; --request-token makes a replayed create succeed", async () => {
    const b = uniq();
    const e1 = await svc(["basin", "create", b, "--ensure", "--retention", "1d", "--json"]);
    expect(e1.code).toBe(0);
    expect(JSON.parse(e1.stdout).result).toBe("created");
    const e2 = await svc(["basin", "create", b, "--ensure", "--retention", "3d", "--json"]);
    expect(e2.code).toBe(0);
    expect(JSON.parse(e2.stdout).result).not.toBe("created");
    expect(
      JSON.parse((await svc(["basin", "get", b, "--json"])).stdout).config.default_stream_config.retention_policy,
    ).toEqual({ age: 259_200 });
    const b2 = uniq();
    expect((await svc(["basin", "create", b2, "--request-token", "tok-1"])).code).toBe(0);
    expect((await svc(["basin", "create", b2, "--request-token", "tok-1"])).code).toBe(0);
    expect((await svc(["basin", "create", b2, "--request-token", "tok-2"])).code).toBe(5);
  });

  it("list: lines, --json, --ndjson, --prefix, --limit, --no-auto-paginate, --long", async () => {
    const prefix = uniq("lst");
    const names = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];
    for (const b of names) expect((await svc(["basin", "create", b])).code).toBe(0);
    const plain = await svc(["basin", "list", "--prefix", prefix]);
    expect(plain).toMatchObject({ code: 0, stderr: "" });
    expect(plain.stdout).toBe(names.map((x) => `${x}\n`).join(""));
    const json = JSON.parse((await svc(["basin", "list", "--prefix", prefix, "--json"])).stdout);
    expect(json.map((x: { name: string }) => x.name)).toEqual(names);
    const nd = (await svc(["basin", "list", "--prefix", prefix, "--ndjson"])).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).name);
    expect(nd).toEqual(names);
    expect((await svc(["basin", "list", "--prefix", prefix, "--limit", "2"])).stdout).toBe(
      `${names[0]}\n${names[1]}\n`,
    );
    expect((await svc(["basin", "list", "--prefix", prefix, "--limit", "1", "--no-auto-paginate"])).stdout).toBe(
      `${names[0]}\n`,
    );
    expect((await svc(["basin", "list", "--prefix", prefix, "--start-after", names[0]!])).stdout).toBe(
      `${names[1]}\n${names[2]}\n`,
    );
    expect((await svc(["basin", "list", "--prefix", prefix, "--long"])).stdout).toMatch(
      new RegExp(`^\\d{4}-\\S+\\s+active\\s+${names[0]}$`, "m"),
    );
    expect((await svc(["ls", "--prefix", prefix])).stdout).toBe(plain.stdout);
    expect((await svc(["list-basins", "--prefix", prefix])).stdout).toBe(plain.stdout);
  });

  it("delete: refuses without --yes (2), deletes with --yes, --if-exists (0), missing (4)", async () => {
    const b = uniq();
    expect((await svc(["basin", "create", b])).code).toBe(0);
    expect((await svc(["basin", "delete", b])).code).toBe(2);
    const d = await svc(["basin", "delete", b, "--yes", "--wait"]);
    expect(d.code).toBe(0);
    expect(d.stderr).toContain(`basin svc://${b} deleted`);
    expect((await svc(["basin", "list", "--prefix", b])).stdout).toBe("");
    expect((await svc(["basin", "delete", b, "-y", "--if-exists"])).code).toBe(0);
    const again = await svc(["basin", "delete", b, "-y"]);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain(`Failed to delete basin svc://${b}`);
  });

  it("the S2 CLI's spellings work as hidden aliases", async () => {
    const b = uniq();
    expect((await svc(["create-basin", b])).code).toBe(0);
    expect((await svc(["get-basin-config", b, "--json"])).code).toBe(0);
    expect((await svc(["reconfigure-basin", b, "--retention", "1d"])).code).toBe(0);
    expect((await svc(["create-stream", `svc://${b}/s1`])).code).toBe(0);
    expect((await svc(["list-streams", b])).stdout).toBe(`svc://${b}/s1\n`);
    expect((await svc(["ls", b])).stdout).toBe(`svc://${b}/s1\n`);
    expect((await svc(["get-stream-config", `svc://${b}/s1`])).code).toBe(0);
    expect((await svc(["reconfigure-stream", `svc://${b}/s1`, "--retention", "2d"])).code).toBe(0);
    expect((await svc(["delete-stream", `svc://${b}/s1`, "--yes"])).code).toBe(0);
    expect((await svc(["delete-basin", b, "--yes"])).code).toBe(0);
  });
});

describe("svc stream and check-tail", () => {
  let b: string;
  beforeAll(async () => {
    b = uniq();
    expect((await svc(["basin", "create", b, "--retention", "3d"])).code).toBe(0);
  });

  it("create (inherits basin defaults), conflict 5, --if-not-exists, get, reconfigure, --ensure", async () => {
    const uri = `svc://${b}/orders/eu`;
    const c = await svc(["stream", "create", uri]);
    expect(c).toMatchObject({ code: 0, stdout: "" });
    expect(c.stderr).toBe(`✓ stream ${uri} created\n`);
    expect((await svc(["stream", "create", uri])).code).toBe(5);
    expect((await svc(["stream", "create", uri, "--if-not-exists"])).code).toBe(0);
    const get = JSON.parse((await svc(["stream", "get", uri, "--json"])).stdout);
    expect(get).toMatchObject({ basin: b, name: "orders/eu", config: { retention_policy: { age: 259_200 } } });
    const r = await svc([
      "stream",
      "reconfigure",
      uri,
      "--storage-class",
      "standard",
      "--timestamping-mode",
      "arrival",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).config).toMatchObject({
      storage_class: "standard",
      timestamping: { mode: "arrival" },
      retention_policy: { age: 259_200 },
    });
    const human = await svc(["stream", "get", uri]);
    expect(human.stdout).toMatch(/^retention_policy\s+3d$/m);
    const e = await svc(["stream", "create", `svc://${b}/ensured`, "--ensure", "--retention", "infinite", "--json"]);
    expect(e.code).toBe(0);
    expect(JSON.parse(e.stdout).result).toBe("created");
  });

  it("list with a URI prefix, --prefix, both (2), --long, --json", async () => {
    for (const s of ["pfx/a", "pfx/b", "other"])
      expect((await svc(["stream", "create", `svc://${b}/${s}`])).code).toBe(0);
    expect((await svc(["stream", "list", `svc://${b}/pfx/`])).stdout).toBe(`svc://${b}/pfx/a\nsvc://${b}/pfx/b\n`);
    expect((await svc(["stream", "list", b, "--prefix", "pfx/"])).stdout).toBe(`svc://${b}/pfx/a\nsvc://${b}/pfx/b\n`);
    const both = await svc(["stream", "list", `svc://${b}/pfx/`, "--prefix", "x"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("multiple prefixes");
    expect((await svc(["stream", "list", `svc://${b}/pfx/`, "--long"])).stdout).toMatch(
      new RegExp(`^\\d{4}-\\S+\\s+active\\s+svc://${b}/pfx/a$`, "m"),
    );
    const json = JSON.parse((await svc(["stream", "list", `svc://${b}/pfx/`, "--json"])).stdout);
    expect(json.map((s: { name: string }) => s.name)).toEqual(["pfx/a", "pfx/b"]);
  });

  it("check-tail prints N @ TS, --json, --seq-only; missing stream is 4", async () => {
    const uri = `svc://${b}/tailed`;
    expect((await svc(["stream", "create", uri])).code).toBe(0);
    expect(await svc(["check-tail", uri])).toMatchObject({ code: 0, stdout: "0 @ -\n", stderr: "" });
    expect(JSON.parse((await svc(["check-tail", uri, "--json"])).stdout)).toEqual({ seq_num: 0, timestamp: null });
    expect((await svc(["check-tail", uri, "--seq-only"])).stdout).toBe("0\n");
    expect((await svc(["check-tail", uri, "--time-format", "iso"])).stdout).toBe("0 @ -\n");
    const missing = await svc(["check-tail", `svc://${b}/nope`]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain(`Failed to check tail of svc://${b}/nope`);
    expect(missing.stderr).toContain("(404 stream_not_found)");
  });

  it("delete: --yes, --if-exists, missing 4; stream create in a missing basin is 4", async () => {
    const uri = `svc://${b}/doomed`;
    expect((await svc(["stream", "create", uri])).code).toBe(0);
    expect((await svc(["stream", "delete", uri])).code).toBe(2);
    expect((await svc(["stream", "delete", uri, "--yes"])).code).toBe(0);
    expect((await svc(["stream", "delete", `svc://${b}/never`, "--yes", "--if-exists"])).code).toBe(0);
    expect((await svc(["stream", "delete", `svc://${b}/never`, "--yes"])).code).toBe(4);
    expect((await svc(["stream", "create", `svc://${uniq("nobasin")}/s`])).code).toBe(4);
  });

  it("--quiet prints nothing on stderr on success; -v logs requests", async () => {
    const q = await svc(["-q", "stream", "create", `svc://${b}/quiet`]);
    expect(q).toMatchObject({ code: 0, stdout: "", stderr: "" });
    const v = await svc(["stream", "get", `svc://${b}/quiet`, "-v"]);
    expect(v.stderr).toMatch(/GET http:\/\/\S+\/v1\/streams\/quiet → 200/);
    expect(v.stderr).not.toContain(lite.token);
  });
});

describe("svc output plumbing", () => {
  it("a closed stdout pipe ends quietly with exit 0", async () => {
    const { spawnSync } = await import("node:child_process");
    const { SVC_BIN } = await import("../helpers/cli.js");
    const r = spawnSync(
      "bash",
      [
        "-c",
        `set -o pipefail; "${process.execPath}" "${SVC_BIN}" basin list --json | head -c 1 >/dev/null; echo "\${PIPESTATUS[0]}"`,
      ],
      {
        env: { ...process.env, ...env, FORCE_COLOR: "0" },
        encoding: "utf8",
      },
    );
    expect(r.stdout.trim()).toBe("0");
    expect(r.stderr).toBe("");
  });
});

describe("svc auth", () => {
  it("a wrong token is exit 3 with a hint naming its source", async () => {
    const r = await svc(["basin", "list"], { env: { SVC_ACCESS_TOKEN: "not-a-valid-token" } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("env SVC_ACCESS_TOKEN");
    expect(r.stderr).not.toContain("not-a-valid-token");
  });
});
