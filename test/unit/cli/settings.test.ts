import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configPath } from "../../../src/cli/config-file.js";
import { hintOf } from "../../../src/cli/failure.js";
import { resolveSettings } from "../../../src/cli/settings.js";
import type { TomlTable } from "../../../src/cli/toml.js";
import { LOCAL_LITE_ENDPOINT, localLiteDataDir, ROOT_TOKEN_FILE } from "../../../src/local-lite.js";
import { scratchDir } from "../../helpers/scratch.js";

const PATH = "/cfg/config.toml";
const home = () => scratchDir("svc-settings-");

const file: TomlTable = {
  account_endpoint: "http://file-a",
  basin_endpoint: "http://file-b",
  access_token: "file-token",
  retries: 5,
  profiles: {
    staging: { account_endpoint: "http://prof-a", basin_endpoint: "http://prof-b", access_token: "prof-token" },
  },
};

describe("cli > settings precedence (flag > env > profile > file > default)", () => {
  it("uses built-in defaults: the local svc lite", () => {
    const s = resolveSettings({}, { HOME: home() }, {}, PATH);
    expect(s.accountEndpoint).toEqual({ value: LOCAL_LITE_ENDPOINT, source: "default: the local svc lite" });
    expect(s.basinEndpoint.value).toBe(LOCAL_LITE_ENDPOINT);
    expect(s.accessToken).toBeUndefined();
    expect(s.timeoutMs.value).toBe(30_000);
    expect(s.retries.value).toBe(2);
  });

  it("reads the lite root token when nothing is configured", () => {
    const h = home();
    const dir = localLiteDataDir({ HOME: h });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, ROOT_TOKEN_FILE), "root-abc\n", { mode: 0o600 });
    const s = resolveSettings({}, { HOME: h }, {}, PATH);
    expect(s.accessToken?.value).toBe("root-abc");
    expect(s.accessToken?.source).toContain("svc lite's root token in");
  });

  it("prefers XDG_DATA_HOME for the lite data dir", () => {
    expect(localLiteDataDir({ HOME: "/h", XDG_DATA_HOME: "/x" })).toBe("/x/svc/lite");
    expect(localLiteDataDir({ HOME: "/h" })).toBe("/h/.local/share/svc/lite");
  });

  it("file top level beats defaults", () => {
    const s = resolveSettings({}, {}, file, PATH);
    expect(s.accountEndpoint.value).toBe("http://file-a");
    expect(s.accessToken?.value).toBe("file-token");
    expect(s.retries).toEqual({ value: 5, source: `config ${PATH}` });
  });

  it("profile beats the file top level, and inherits keys it does not set", () => {
    const s = resolveSettings({ profile: "staging" }, {}, file, PATH);
    expect(s.accountEndpoint.value).toBe("http://prof-a");
    expect(s.accessToken?.value).toBe("prof-token");
    expect(s.retries.value).toBe(5);
    expect(s.profile).toBe("staging");
  });

  it("SVC_PROFILE selects a profile; --profile wins over it", () => {
    const f: TomlTable = { profiles: { a: { retries: 1 }, b: { retries: 2 } } };
    expect(resolveSettings({}, { SVC_PROFILE: "a" }, f, PATH).retries.value).toBe(1);
    expect(resolveSettings({ profile: "b" }, { SVC_PROFILE: "a" }, f, PATH).retries.value).toBe(2);
  });

  it("env beats the profile", () => {
    const s = resolveSettings(
      { profile: "staging" },
      { SVC_ACCOUNT_ENDPOINT: "http://env-a", SVC_BASIN_ENDPOINT: "http://env-b", SVC_ACCESS_TOKEN: "env-token" },
      file,
      PATH,
    );
    expect(s.accountEndpoint).toEqual({ value: "http://env-a", source: "env SVC_ACCOUNT_ENDPOINT" });
    expect(s.accessToken?.value).toBe("env-token");
  });

  it("flags beat env", () => {
    const s = resolveSettings(
      {
        accountEndpoint: "http://flag-a",
        basinEndpoint: "http://flag-b",
        accessToken: "flag-token",
        timeout: "5s",
        retries: "0",
      },
      { SVC_ACCOUNT_ENDPOINT: "http://env-a", SVC_BASIN_ENDPOINT: "http://env-b", SVC_ACCESS_TOKEN: "env-token" },
      file,
      PATH,
    );
    expect(s.accountEndpoint.value).toBe("http://flag-a");
    expect(s.basinEndpoint.value).toBe("http://flag-b");
    expect(s.accessToken).toEqual({ value: "flag-token", source: "flag --access-token" });
    expect(s.timeoutMs.value).toBe(5000);
    expect(s.retries.value).toBe(0);
  });

  it("empty env values do not override", () => {
    const s = resolveSettings({}, { SVC_ACCOUNT_ENDPOINT: "", SVC_BASIN_ENDPOINT: "" }, file, PATH);
    expect(s.accountEndpoint.value).toBe("http://file-a");
  });

  it("half-set endpoints are a usage error naming the source", () => {
    const run = () => resolveSettings({}, { SVC_ACCOUNT_ENDPOINT: "http://env-a" }, {}, PATH);
    expect(run).toThrow(expect.objectContaining({ code: "usage" }));
    expect(run).toThrow(/account endpoint comes from env SVC_ACCOUNT_ENDPOINT, but the basin endpoint is not set/);
    expect(() => resolveSettings({ basinEndpoint: "http://b" }, {}, {}, PATH)).toThrow(
      /basin endpoint comes from flag --basin-endpoint, but the account endpoint is not set/,
    );
  });

  it("an unknown profile is a usage error", () => {
    expect(() => resolveSettings({ profile: "nope" }, {}, file, PATH)).toThrow(
      /profile "nope" is not defined in \/cfg\/config.toml/,
    );
  });

  it("a mistyped profile gets a did-you-mean, not advice to create the typo", () => {
    let err: unknown;
    try {
      resolveSettings({ profile: "stagign" }, {}, file, PATH);
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toBe(`profile "stagign" is not defined in ${PATH}; did you mean staging?`);
    expect(hintOf(err)).not.toContain("config set");
    expect(hintOf(err)).toContain("staging");
  });

  it("validates values wherever they come from", () => {
    expect(() => resolveSettings({}, { SVC_COMPRESSION: "lz4" }, {}, PATH)).toThrow(
      /SVC_COMPRESSION must be one of none, gzip, zstd/,
    );
    expect(() => resolveSettings({}, {}, { retries: "many" }, PATH)).toThrow(
      /retries in \/cfg\/config.toml must be an integer/,
    );
    expect(() => resolveSettings({ accountEndpoint: "ftp://x", basinEndpoint: "ftp://x" }, {}, {}, PATH)).toThrow(
      /must use http or https/,
    );
    expect(() => resolveSettings({ timeout: "fast" }, {}, {}, PATH)).toThrow(/invalid duration/);
  });

  it("dialect: svc by default; flag > env > profile > file, case-insensitive; anything else is a usage error", () => {
    expect(resolveSettings({}, { HOME: home() }, {}, PATH).dialect).toEqual({ value: "svc", source: "default" });
    const withKeys: TomlTable = { ...file, dialect: "svc", profiles: { s2: { dialect: "S2" } } };
    expect(resolveSettings({}, {}, withKeys, PATH).dialect).toEqual({ value: "svc", source: `config ${PATH}` });
    expect(resolveSettings({ profile: "s2" }, {}, withKeys, PATH).dialect).toEqual({
      value: "s2",
      source: `profile s2 of ${PATH}`,
    });
    expect(resolveSettings({ profile: "s2" }, { SVC_DIALECT: "svc" }, withKeys, PATH).dialect).toEqual({
      value: "svc",
      source: "env SVC_DIALECT",
    });
    expect(resolveSettings({ dialect: "s2" }, { SVC_DIALECT: "svc" }, withKeys, PATH).dialect).toEqual({
      value: "s2",
      source: "flag --dialect",
    });
    expect(() => resolveSettings({}, { SVC_DIALECT: "s3" }, {}, PATH)).toThrow(
      /SVC_DIALECT must be one of svc, s2 \(got "s3"\)/,
    );
  });

  it("does not read the lite token when endpoints are configured", () => {
    const h = home();
    const dir = localLiteDataDir({ HOME: h });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, ROOT_TOKEN_FILE), "root-abc");
    const s = resolveSettings(
      {},
      { HOME: h, SVC_ACCOUNT_ENDPOINT: "http://a", SVC_BASIN_ENDPOINT: "http://a" },
      {},
      PATH,
    );
    expect(s.accessToken).toBeUndefined();
  });
});

describe("cli > S2's TLS setting (ssl_no_verify, S2_SSL_NO_VERIFY)", () => {
  const s2 = { S2_ACCOUNT_ENDPOINT: "https://a", S2_BASIN_ENDPOINT: "https://a" };

  it("S2_SSL_NO_VERIFY applies with S2's endpoints, below svc's own setting", () => {
    expect(resolveSettings({}, { ...s2, S2_SSL_NO_VERIFY: "true" }, {}, PATH).insecure).toEqual({
      value: true,
      source: "env S2_SSL_NO_VERIFY",
    });
    expect(resolveSettings({}, { ...s2, S2_SSL_NO_VERIFY: "false" }, {}, PATH).insecure.value).toBe(false);
    expect(resolveSettings({}, { ...s2, S2_SSL_NO_VERIFY: "true", SVC_INSECURE: "false" }, {}, PATH).insecure).toEqual({
      value: false,
      source: "env SVC_INSECURE",
    });
    expect(() => resolveSettings({}, { ...s2, S2_SSL_NO_VERIFY: "maybe" }, {}, PATH)).toThrow(
      /S2_SSL_NO_VERIFY must be true or false/,
    );
  });

  it("S2_SSL_NO_VERIFY does not apply to svc's own endpoints: a note says so", () => {
    const s = resolveSettings({}, { S2_SSL_NO_VERIFY: "true" }, file, PATH);
    expect(s.insecure).toEqual({ value: false, source: "default" });
    expect(s.notes.join("\n")).toContain("S2_SSL_NO_VERIFY is ignored");
  });

  it("ssl_no_verify in the file is insecure, svc's name first", () => {
    expect(resolveSettings({}, {}, { ...file, ssl_no_verify: true }, PATH).insecure).toEqual({
      value: true,
      source: `config ${PATH}`,
    });
    expect(resolveSettings({}, {}, { ...file, ssl_no_verify: true, insecure: false }, PATH).insecure.value).toBe(false);
    const prof: TomlTable = {
      ...file,
      profiles: { s2: { account_endpoint: "http://p", basin_endpoint: "http://p", ssl_no_verify: "true" } },
    };
    expect(resolveSettings({ profile: "s2" }, {}, prof, PATH).insecure.value).toBe(true);
  });
});

describe("cli > config path", () => {
  it("is --config, else SVC_CONFIG, else XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configPath({ HOME: "/h" })).toBe("/h/.config/svc/config.toml");
    expect(configPath({ HOME: "/h", XDG_CONFIG_HOME: "/x" })).toBe("/x/svc/config.toml");
    expect(configPath({ HOME: "/h", SVC_CONFIG: "/c.toml" })).toBe("/c.toml");
    expect(configPath({ HOME: "/h", SVC_CONFIG: "/c.toml" }, "/flag.toml")).toBe("/flag.toml");
  });
});
