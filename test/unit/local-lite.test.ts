/**
 * What svc and a local svc lite agree on lives in one module (src/local-lite.ts), which both
 * faces import: lite started with no flags listens where svc goes when nothing is configured,
 * and keeps its root token where svc looks for it; and the proof lite gives is the one svc checks.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { liteTokenPath, resolveSettings } from "../../src/cli/settings.js";
import { parseLiteArgs } from "../../src/lite/options.js";
import { liteProof, ROOT_TOKEN_FILE } from "../../src/local-lite.js";

describe("lite's defaults are the ones svc assumes of a local lite", () => {
  it("svc's default endpoint is where a lite started with no flags listens", () => {
    const o = parseLiteArgs([], { HOME: "/home/u" });
    const s = resolveSettings({}, { HOME: "/home/u" }, {}, "/cfg/config.toml");
    expect(s.accountEndpoint.value).toBe(`http://${o.host}:${o.port}`);
    expect(s.basinEndpoint.value).toBe(`http://${o.host}:${o.port}`);
  });

  it("svc looks for the root token where a lite started with no flags keeps it, XDG_DATA_HOME or not", () => {
    for (const env of [{ HOME: "/home/u" }, { HOME: "/home/u", XDG_DATA_HOME: "/xdg" }]) {
      expect(liteTokenPath(env)).toBe(join(parseLiteArgs([], env).dataDir!, ROOT_TOKEN_FILE));
    }
  });
});

describe("the proof of the root token", () => {
  it("is bound to the token, the nonce and the connection's address and port", () => {
    const p = liteProof("token-a", "nonce-0123456789abcdef", "127.0.0.1", 4243);
    expect(p).toMatch(/^[0-9a-f]{64}$/);
    expect(liteProof("token-a", "nonce-0123456789abcdef", "::ffff:127.0.0.1", 4243)).toBe(p);
    for (const other of [
      liteProof("token-b", "nonce-0123456789abcdef", "127.0.0.1", 4243),
      liteProof("token-a", "nonce-0123456789abcdeg", "127.0.0.1", 4243),
      liteProof("token-a", "nonce-0123456789abcdef", "127.0.0.2", 4243),
      liteProof("token-a", "nonce-0123456789abcdef", "127.0.0.1", 4244),
    ])
      expect(other).not.toBe(p);
  });
});
