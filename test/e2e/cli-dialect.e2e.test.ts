/**
 * svc's `dialect` setting (`--dialect`, SVC_DIALECT, the `dialect` config key): with `s2`
 * every request svc makes names its protocol headers as S2 does (`s2-basin`, `s2-format`,
 * `s2-request-token`, `s2s/proto`...), unary and session alike, so svc can operate an
 * S2-compatible server; `svc ping` says which dialect the server answered in. The built
 * bin/svc against lite through a recording proxy that sees every request's header names;
 * with `onlyS2` the proxy stands for a server that knows only S2's names.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc, tempHome } from "../helpers/cli.js";
import { type RecordingProxy, startRecordingProxy, usesSvcNames } from "../helpers/header-recorder.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
let proxy: RecordingProxy;
let onlyS2: RecordingProxy;
beforeAll(async () => {
  lite = await startLite();
  [proxy, onlyS2] = await Promise.all([startRecordingProxy(lite.url), startRecordingProxy(lite.url, { onlyS2: true })]);
});
afterAll(async () => {
  await Promise.all([proxy?.close(), onlyS2?.close()]);
  expect(await lite.stop()).toBe(0);
});

const at = (url: string, extra: Record<string, string> = {}) => ({
  SVC_ACCOUNT_ENDPOINT: url,
  SVC_BASIN_ENDPOINT: url,
  SVC_ACCESS_TOKEN: lite.token,
  ...extra,
});

/** Runs svc and expects exit 0. */
async function ok(args: string[], env: Record<string, string>, stdin?: string): Promise<string> {
  const r = await runSvc(args, { env, ...(stdin === undefined ? {} : { stdin }) });
  expect(r.code, `svc ${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** The data commands of a small session, through `url`, in whatever dialect `env` sets. */
async function workload(url: string, env: Record<string, string>, basin: string): Promise<void> {
  const e = at(url, env);
  await ok(["basin", "create", basin, "--create-stream-on-append"], e);
  await ok(["stream", "create", `svc://${basin}/made`], e);
  await ok(["append", `svc://${basin}/s`, "--transport", "session"], e, "one\ntwo\n");
  await ok(["append", `svc://${basin}/s`, "--transport", "unary"], e, "three\n");
  expect(await ok(["read", `svc://${basin}/s`, "-s", "0", "-n", "3", "--transport", "session"], e)).toBe(
    "one\ntwo\nthree\n",
  );
  expect(await ok(["read", `svc://${basin}/s`, "-s", "1", "-n", "2", "--transport", "sse"], e)).toBe("two\nthree\n");
  expect(
    await ok(["read", `svc://${basin}/s`, "-s", "2", "-n", "1", "--transport", "unary", "--format", "json-base64"], e),
  ).toContain('"body":"dGhyZWU="');
  expect(await ok(["check-tail", `svc://${basin}/s`], e)).toMatch(/^3\b/);
  await ok(["stream", "reconfigure", `svc://${basin}/made`, "--storage-class", "standard"], e);
}

describe("svc --dialect s2", () => {
  it("names every protocol header as S2 does, unary and session, and gets the same answers", async () => {
    const from = proxy.requests.length;
    await workload(proxy.url, { SVC_DIALECT: "s2" }, uniqueBasin("cli-s2"));
    const seen = proxy.requests.slice(from);
    expect(seen.filter(usesSvcNames)).toEqual([]);
    const names = new Set(seen.flatMap((r) => Object.keys(r.headers)));
    for (const n of ["s2-basin", "s2-request-token", "s2-format"]) expect(names, n).toContain(n);
    const sessions = seen.filter((r) => r.protocol === "h2" && r.headers["content-type"] !== undefined);
    expect(sessions.map((r) => `${r.method} ${r.headers["content-type"]}`)).toEqual(
      expect.arrayContaining(["POST s2s/proto", "GET s2s/proto"]),
    );
    expect(seen.some((r) => r.headers.accept === "text/event-stream" && r.headers["s2-format"] === "base64")).toBe(
      true,
    );
  });

  it("leaves the default (svc) dialect as it was", async () => {
    const from = proxy.requests.length;
    await workload(proxy.url, {}, uniqueBasin("cli-svc"));
    const seen = proxy.requests.slice(from);
    expect(
      seen.some(
        (r) => Object.keys(r.headers).some((k) => k.startsWith("s2-")) || r.headers["content-type"] === "s2s/proto",
      ),
    ).toBe(false);
    expect(seen.filter((r) => r.headers["svc-basin"] !== undefined).length).toBeGreaterThan(5);
  });

  it("operates a server that knows only S2's names, which refuses svc's", async () => {
    const basin = uniqueBasin("cli-onlys2");
    await workload(onlyS2.url, { SVC_DIALECT: "s2" }, basin);
    const refused = await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-n", "1"], { env: at(onlyS2.url) });
    expect(refused.code).toBe(2); // a 400 is a usage error (docs/exit-codes.md)
    expect(refused.stderr).toContain("bad_header");
  });

  it("is a flag, an environment variable and a config or profile key; bad values are usage errors", async () => {
    const home = tempHome();
    const config = join(home, ".config", "svc");
    mkdirSync(config, { recursive: true });
    writeFileSync(
      join(config, "config.toml"),
      `[profiles.s2server]\ndialect = "s2"\naccount_endpoint = "${proxy.url}"\nbasin_endpoint = "${proxy.url}"\n`,
    );
    const basin = uniqueBasin("cli-profile");
    const run = (args: string[], env: Record<string, string> = {}) =>
      runSvc(args, { home, env: { SVC_ACCESS_TOKEN: lite.token, ...env } });
    let from = proxy.requests.length;
    expect((await run(["--profile", "s2server", "basin", "create", basin])).code).toBe(0);
    expect(proxy.requests.slice(from).map((r) => r.headers["s2-request-token"] !== undefined)).toEqual([true]);
    from = proxy.requests.length;
    expect(
      (await run(["--profile", "s2server", "--dialect", "svc", "stream", "create", `svc://${basin}/x`])).code,
    ).toBe(0);
    expect(proxy.requests.slice(from).map((r) => r.headers["svc-basin"])).toEqual([basin]);
    from = proxy.requests.length;
    expect(
      (await run(["--profile", "s2server", "stream", "create", `svc://${basin}/y`], { SVC_DIALECT: "svc" })).code,
    ).toBe(0);
    expect(proxy.requests.slice(from).map((r) => r.headers["svc-basin"])).toEqual([basin]);
    expect((await run(["--profile", "s2server", "config", "get", "dialect"])).stdout.trim()).toBe("s2");
    const bad = await run(["--dialect", "s3", "basin", "list"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("s3");
    const badEnv = await run(["basin", "list"], {
      SVC_DIALECT: "s3",
      SVC_ACCOUNT_ENDPOINT: proxy.url,
      SVC_BASIN_ENDPOINT: proxy.url,
    });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain("SVC_DIALECT must be one of svc, s2");
    const set = await run(["config", "set", "dialect", "s3"]);
    expect(set.code).toBe(2);
  });
});

describe("svc ping and the dialect", () => {
  const ping = async (url: string, env: Record<string, string>) => {
    const r = await runSvc(["ping", "-n", "1", "--json"], { env: at(url, env) });
    expect(r.code, r.stderr).toBe(0);
    return {
      server: JSON.parse(r.stdout).server as { dialect: string | null; dialect_asked: string },
      text: (await runSvc(["ping", "-n", "1"], { env: at(url, env) })).stdout,
    };
  };

  it("says lite answered in the dialect it was asked in", async () => {
    const s2 = await ping(lite.url, { SVC_DIALECT: "s2" });
    expect(s2.server).toMatchObject({ dialect: "s2", dialect_asked: "s2" });
    expect(s2.text).toMatch(/^server +svc lite .* · dialect s2$/m);
    expect((await ping(lite.url, {})).server).toMatchObject({ dialect: "svc", dialect_asked: "svc" });
  });

  it("says when the server answers only the other dialect, and which to use", async () => {
    const asked = await ping(onlyS2.url, {});
    expect(asked.server).toMatchObject({ dialect: "s2", dialect_asked: "svc" });
    expect(asked.text).toContain("dialect s2: it did not understand svc's header names (use --dialect s2)");
    expect((await ping(onlyS2.url, { SVC_DIALECT: "s2" })).server).toMatchObject({
      dialect: "s2",
      dialect_asked: "s2",
    });
  });
});
