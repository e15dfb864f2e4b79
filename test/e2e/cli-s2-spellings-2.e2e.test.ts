/**
 * S2's command spellings keep S2's contract (issue 42 item 5; docs/s2.md): fence and trim
 * spelled S2's way, `issue-access-token` with S2's flags, the `get-*-metrics` and
 * `*-location(s)` commands, durations as S2 writes them, and `ssl_no_verify`. Each runs S2's
 * CLI integration expectations (cli/tests/integration.rs of S2's repository: exit 0, what the
 * output holds, failure where S2's fails) as svc commands against a real lite, with no
 * terminal (runSvc pipes stdin): nothing may ask. Bad values are one `error:` line and the
 * documented exit code (docs/exit-codes.md).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunResult, runSvc, tempHome } from "../helpers/cli.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
let n = 0;

beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

/** A new stream, created S2's way: its `s2://` URI. */
async function s2Stream(prefix: string): Promise<string> {
  const uri = `s2://${d.basin}/${prefix}-${n++}`;
  const r = await d.svc(["create-stream", uri]);
  expect(r.code, r.stderr).toBe(0);
  return uri;
}

/** S2's tests append lines from a file: `append URI --format text --input FILE`. */
async function appendLines(uri: string, lines: string[]): Promise<void> {
  const file = join(tempHome(), "input.txt");
  writeFileSync(file, lines.map((l) => `${l}\n`).join(""));
  const r = await d.svc(["append", uri, "--format", "text", "--input", file]);
  expect(r.code, r.stderr).toBe(0);
}

/** A usage error as svc reports every error: one `error:` line, exit 2. */
function expectUsageError(r: RunResult, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  const errors = r.stderr.split("\n").filter((l) => l.startsWith("error:"));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(message);
  expect(r.stdout).toBe("");
}

describe("trim spelled S2's way", () => {
  it("trim s2://… POINT appends the trim without asking (S2's trim_stream); svc's own trim still asks", async () => {
    const uri = await s2Stream("trim");
    await appendLines(uri, ["record 1", "record 2", "record 3", "record 4", "record 5"]);
    const svcWay = await d.svc(["trim", uri.replace("s2://", "svc://"), "3"]);
    expect(svcWay.code).toBe(2);
    expect(svcWay.stderr).toContain("refusing without --yes");
    const r = await d.svc(["trim", uri, "3"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("@");
    expect(r.stderr).toContain("trim to 3");
    // The trim command record took the next position: the tail moved from 5 to 6.
    expect((await d.svc(["check-tail", uri])).stdout).toMatch(/^6 @ /);
  });

  it("trim with a fencing token, long and S2's -f (S2's trim_with_fencing_token)", async () => {
    const uri = await s2Stream("trimfence");
    await appendLines(uri, ["record 1", "record 2", "record 3", "record 4", "record 5"]);
    expect((await d.svc(["fence", uri, "trim-token"])).code).toBe(0);
    const ok = await d.svc(["trim", uri, "3", "--fencing-token", "trim-token"]);
    expect(ok.code, ok.stderr).toBe(0);
    const short = await d.svc(["trim", uri, "3", "-f", "trim-token"]);
    expect(short.code, short.stderr).toBe(0);
    const wrong = await d.svc(["trim", uri, "4", "--fencing-token", "wrong-token"]);
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toContain("fencing_token_mismatch");
    const wrongShort = await d.svc(["trim", uri, "4", "-f", "wrong-token"]);
    expect(wrongShort.code).toBe(5);
  });

  it("reads nothing first: a token that may write but not read can trim S2's way", async () => {
    const uri = await s2Stream("trimonly");
    await appendLines(uri, ["a", "b", "c"]);
    const made = await d.svc([
      "issue-access-token",
      `writer-${Date.now().toString(36)}`,
      "--basins-exact",
      d.basin,
      "--streams-prefix",
      "",
      "--op-group-perms",
      "stream=w",
    ]);
    expect(made.code, made.stderr).toBe(0);
    const env = { SVC_ACCESS_TOKEN: made.stdout.trim() };
    const r = await d.svc(["trim", uri, "2"], { env });
    expect(r.code, r.stderr).toBe(0);
    // svc's own trim reads the stream first, which this token may not.
    const svcWay = await d.svc(["trim", uri.replace("s2://", "svc://"), "2", "--yes"], { env });
    expect(svcWay.code).toBe(3);
  });

  it("a bad trim point is a usage error", async () => {
    const uri = await s2Stream("trimbad");
    expectUsageError(await d.svc(["trim", uri, "three"]), /<seq-num>/);
  });
});

describe("fence spelled S2's way", () => {
  it("fence s2://… TOKEN (S2's fence_stream), then append with it (append_with_fencing_token)", async () => {
    const uri = await s2Stream("fence");
    const r = await d.svc(["fence", uri, "my-token"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("@");
    const ok = await d.svc(["append", uri, "--format", "text", "--input", "-", "--fencing-token", "my-token"], {
      stdin: "fenced record\n",
    });
    expect(ok.code, ok.stderr).toBe(0);
    const wrong = await d.svc(["append", uri, "--format", "text", "--input", "-", "--fencing-token", "wrong-token"], {
      stdin: "should fail\n",
    });
    expect(wrong.code).toBe(5);
  });

  it("fence with the current token, long and S2's -f (S2's fence_with_existing_token)", async () => {
    const uri = await s2Stream("fence2");
    expect((await d.svc(["fence", uri, "token-v1"])).code).toBe(0);
    const v2 = await d.svc(["fence", uri, "token-v2", "--fencing-token", "token-v1"]);
    expect(v2.code, v2.stderr).toBe(0);
    const v3 = await d.svc(["fence", uri, "token-v3", "-f", "token-v2"]);
    expect(v3.code, v3.stderr).toBe(0);
    const wrong = await d.svc(["fence", uri, "token-v4", "--fencing-token", "wrong-token"]);
    expect(wrong.code).toBe(5);
    const wrongShort = await d.svc(["fence", uri, "token-v4", "-f", "wrong-token"]);
    expect(wrongShort.code).toBe(5);
    // -m is S2's match-seq-num there too: the fence records sit at 0, 1 and 2, the tail is 3.
    const matched = await d.svc(["fence", uri, "token-v4", "-f", "token-v3", "-m", "3"]);
    expect(matched.code, matched.stderr).toBe(0);
  });

  it("a fencing token over 36 bytes is a usage error", async () => {
    const uri = await s2Stream("fencebad");
    expectUsageError(await d.svc(["fence", uri, "x".repeat(37)]), /36/);
  });
});

describe("durations as S2 writes them, in S2's spellings", () => {
  it("reconfigure-stream --retention-policy 14d, then get-stream-config says 14d (S2's reconfigure_stream)", async () => {
    const uri = await s2Stream("ret");
    const r = await d.svc(["reconfigure-stream", uri, "--retention-policy", "14d"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^retention_policy +14d$/m);
    const got = await d.svc(["get-stream-config", uri]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/^retention_policy +14d$/m);
    // svc's own spelling keeps svc's form.
    expect((await d.svc(["stream", "get", uri])).stdout).toMatch(/^retention_policy +2w$/m);
  });

  it("create-basin with a config, get-basin-config shows it (S2's create_basin_with_config, diff_basins)", async () => {
    const basin = uniqueBasin("s2dur");
    const r = await d.svc(["create-basin", basin, "--retention-policy", "7d", "--create-stream-on-append"]);
    expect(r.code, r.stderr).toBe(0);
    const got = await d.svc(["get-basin-config", basin]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain("create_stream_on_append");
    expect(got.stdout).toMatch(/^default_stream_config\.retention_policy +7d$/m);
    expect((await d.svc(["basin", "get", basin])).stdout).toMatch(/^default_stream_config\.retention_policy +1w$/m);
    const re = await d.svc(["reconfigure-basin", basin, "--retention-policy", "36h"]);
    expect(re.code, re.stderr).toBe(0);
    expect(re.stdout).toMatch(/^default_stream_config\.retention_policy +1d 12h$/m);
    expect((await d.svc(["delete-basin", basin])).code).toBe(0);
  });

  it("--timestamping-uncapped takes S2's boolean value", async () => {
    const uri = await s2Stream("uncapped");
    const on = await d.svc(["reconfigure-stream", uri, "--timestamping-uncapped", "true"]);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toMatch(/^timestamping\.uncapped +true$/m);
    const off = await d.svc(["reconfigure-stream", uri, "--timestamping-uncapped", "false"]);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/^timestamping\.uncapped +false$/m);
  });

  it("a bad retention is a usage error", async () => {
    const uri = await s2Stream("retbad");
    expectUsageError(await d.svc(["reconfigure-stream", uri, "--retention-policy", "14x"]), /14x/);
  });
});

describe("issue-access-token with S2's flags", () => {
  const id = `s2-issue-${Date.now().toString(36)}`;

  it("--access-tokens-prefix, --op-group-perms, --ops in S2's names: prints only the token", async () => {
    const r = await d.svc([
      "issue-access-token",
      id,
      "--basins-prefix",
      "",
      "--streams-prefix",
      "",
      "--access-tokens-prefix",
      `${id}/`,
      "--op-group-perms",
      "account=rw,basin=r,stream=w",
      "--ops",
      "get_stream_metrics",
      "--ops",
      "read,check_tail",
      "--expires-in",
      "30d",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    const listed = JSON.parse((await d.svc(["token", "list", "--json"])).stdout) as {
      id: string;
      scope: Record<string, unknown>;
    }[];
    const t = listed.find((x) => x.id === id);
    expect(t?.scope).toMatchObject({
      access_tokens: { prefix: `${id}/` },
      op_groups: {
        account: { read: true, write: true },
        basin: { read: true, write: false },
        stream: { read: false, write: true },
      },
      ops: ["stream-metrics", "read", "check-tail"],
    });
    // The token works: account=r lists basins.
    const used = await d.svc(["list-basins"], { env: { SVC_ACCESS_TOKEN: r.stdout.trim() } });
    expect(used.code, used.stderr).toBe(0);
    expect(used.stdout).toContain(d.basin);
  });

  it("S2's older --id, to issue and to revoke (never asking)", async () => {
    const old = `${id}-old`;
    const r = await d.svc(["issue-access-token", "--id", old, "--access-tokens-exact", old, "--ops", "list_basins"]);
    expect(r.code, r.stderr).toBe(0);
    const revoked = await d.svc(["revoke-access-token", "--id", old]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await d.svc(["token", "list", "--json"])).stdout).not.toContain(`"${old}"`);
  });

  it("bad values are usage errors naming S2's flag", async () => {
    expectUsageError(
      await d.svc(["issue-access-token", `${id}-bad`, "--op-group-perms", "account=x"]),
      /--op-group-perms: expected LEVEL=r\|w\|rw/,
    );
    expectUsageError(
      await d.svc([
        "issue-access-token",
        `${id}-bad`,
        "--access-tokens-prefix",
        "a",
        "--access-tokens-exact",
        "b",
        "--ops",
        "read",
      ]),
      /--access-tokens-prefix.*cannot be used with.*--access-tokens-exact/,
    );
    expectUsageError(
      await d.svc(["issue-access-token", `${id}-bad`, "--ops", "get_basin_metric"]),
      /unknown operation "get_basin_metric"; did you mean get-basin-metrics\?/,
    );
  });
});

describe("get-*-metrics", () => {
  it("get-account-metrics active-basins lists the basin", async () => {
    const r = await d.svc(["get-account-metrics", "active-basins", "--start-ago", "1d", "--end-ago", "0s"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("active-basins");
    expect(r.stdout).toContain(d.basin);
  });

  it("get-account-metrics account-ops and get-basin-metrics append-ops, by minute", async () => {
    for (const args of [
      ["get-account-metrics", "account-ops"],
      ["get-basin-metrics", d.basin, "append-ops"],
    ]) {
      const r = await d.svc([...args, "--start-ago", "1h", "--end-ago", "0s", "--interval", "minute"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^# .*operations per minute/m);
    }
  });

  it("get-basin-metrics storage and get-stream-metrics storage, with unix seconds", async () => {
    const uri = await s2Stream("metrics");
    await appendLines(uri, ["m1", "m2"]);
    const now = Math.floor(Date.now() / 1000);
    const range = ["--start-timestamp", String(now - 3600), "--end-timestamp", String(now)];
    const basin = await d.svc(["get-basin-metrics", `s2://${d.basin}`, "storage", ...range]);
    expect(basin.code, basin.stderr).toBe(0);
    expect(basin.stdout).toContain("# storage (gauge, bytes)");
    const stream = await d.svc(["get-stream-metrics", uri, "storage", ...range, "--format", "json"]);
    expect(stream.code, stream.stderr).toBe(0);
    expect(JSON.parse(stream.stdout)).toHaveProperty("values");
  });

  it("bad metrics and ranges are usage errors", async () => {
    expectUsageError(
      await d.svc(["get-basin-metrics", d.basin, "apend-ops"]),
      /unknown metric "apend-ops"; did you mean append-ops\?/,
    );
    expectUsageError(
      await d.svc(["get-account-metrics", "active-basins", "--start-ago", "1h", "--start-timestamp", "5"]),
      /--start-timestamp.*cannot be used with.*--start-ago/,
    );
    expectUsageError(
      await d.svc(["get-account-metrics", "active-basins", "--start-timestamp", "yesterday"]),
      /--start-timestamp must be a time in unix seconds/,
    );
    expectUsageError(await d.svc(["get-account-metrics", "active-basins", "--end-ago", "1x"]), /--end-ago/);
  });
});

describe("locations", () => {
  it("list-locations, get-default-location, set-default-location print S2's lines", async () => {
    const list = await d.svc(["list-locations"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^\S+ \((public|private)\)$/m);
    const name = list.stdout.split(" ")[0]!;
    const got = await d.svc(["get-default-location"]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/^\S+ \((public|private)\)\n$/);
    const set = await d.svc(["set-default-location", name]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(new RegExp(`^${name} \\((public|private)\\)\\n$`));
    // svc's own spelling prints the name alone.
    expect((await d.svc(["locations", "get-default"])).stdout).toBe(`${name}\n`);
  });

  it("a bad location name is a usage error; one the server does not have is its answer", async () => {
    expectUsageError(await d.svc(["set-default-location", "bad name!"]), /invalid location name/);
    const unknown = await d.svc(["set-default-location", "aws:nowhere-1"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: Failed to set default location aws:nowhere-1: .*\(422 /m);
  });
});

describe("ssl_no_verify", () => {
  let tls: Lite;
  beforeAll(async () => {
    tls = await startLite({ args: ["--tls-self"] });
  }, 60_000);
  afterAll(async () => {
    await tls?.stop();
  });

  const s2Env = (extra: Record<string, string> = {}) => ({
    S2_ACCOUNT_ENDPOINT: tls.url,
    S2_BASIN_ENDPOINT: tls.url,
    S2_ACCESS_TOKEN: tls.token,
    ...extra,
  });

  it("S2_SSL_NO_VERIFY=true with S2's endpoints skips verification, as S2's CLI does", async () => {
    const verified = await runSvc(["list-basins"], { env: s2Env() });
    expect(verified.code).toBe(6);
    expect(verified.stderr).toContain("tls_untrusted");
    const r = await runSvc(["list-basins"], { env: s2Env({ S2_SSL_NO_VERIFY: "true" }) });
    expect(r.code, r.stderr).toBe(0);
    const home = tempHome();
    const listed = await runSvc(["config", "list"], { env: s2Env({ S2_SSL_NO_VERIFY: "true" }), home });
    expect(listed.stderr).toContain("in effect: insecure = true (env S2_SSL_NO_VERIFY)");
  });

  it("S2_SSL_NO_VERIFY does not reach svc's own endpoints, and says so", async () => {
    const env = {
      SVC_ACCOUNT_ENDPOINT: tls.url,
      SVC_BASIN_ENDPOINT: tls.url,
      SVC_ACCESS_TOKEN: tls.token,
      S2_SSL_NO_VERIFY: "true",
    };
    expect((await runSvc(["list-basins"], { env })).code).toBe(6);
    const listed = await runSvc(["config", "list"], { env });
    expect(listed.stderr).toContain("S2_SSL_NO_VERIFY is ignored");
  });

  it("svc config set ssl_no_verify true is svc's insecure; so is ssl_no_verify in the file", async () => {
    const home = tempHome();
    const env = { SVC_ACCOUNT_ENDPOINT: tls.url, SVC_BASIN_ENDPOINT: tls.url, SVC_ACCESS_TOKEN: tls.token };
    const set = await runSvc(["config", "set", "ssl_no_verify", "true"], { home });
    expect(set.code, set.stderr).toBe(0);
    expect((await runSvc(["config", "get", "ssl_no_verify"], { home })).stdout).toBe("true\n");
    expect((await runSvc(["config", "get", "insecure"], { home })).stdout).toBe("true\n");
    expect((await runSvc(["list-basins"], { env, home })).code).toBe(0);
    expect((await runSvc(["config", "unset", "ssl_no_verify"], { home })).code).toBe(0);
    expect((await runSvc(["list-basins"], { env, home })).code).toBe(6);
    // Written by hand as S2's config file has it.
    const file = join(home, "svc.toml");
    writeFileSync(file, "ssl_no_verify = true\n");
    expect((await runSvc(["list-basins"], { env: { ...env, SVC_CONFIG: file }, home })).code).toBe(0);
  });

  it("a value that is not a boolean is a usage error", async () => {
    const r = await runSvc(["list-basins"], { env: s2Env({ S2_SSL_NO_VERIFY: "maybe" }) });
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n").filter((l) => l.startsWith("error:"))).toEqual([
      'error: S2_SSL_NO_VERIFY must be true or false (got "maybe")',
    ]);
    expectUsageError(await runSvc(["config", "set", "ssl_no_verify", "maybe"]), /must be true or false/);
  });
});
