/**
 * svc's encryption key flags against an encrypted stream in lite: -k, env
 * SVC_ENCRYPTION_KEY and --encryption-key-file all round-trip (sessions and unary); the key is
 * never printed (not even with -v); a bad key is a usage error (exit 2); a wrong key fails
 * with decryption_failed.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunOptions, runSvc } from "../helpers/cli.js";
import { type Lite, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let lite: Lite;
const basin = uniqueBasin("k");
const key = randomBytes(32).toString("base64");
const svc = (args: string[], opts: RunOptions = {}) =>
  runSvc(args, {
    timeoutMs: 30_000,
    ...opts,
    env: { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token, ...opts.env },
  });

beforeAll(async () => {
  lite = await startLite();
  const c = liteClient(lite);
  expect(
    (
      await c.call("POST", "/v1/basins", {
        json: { basin, config: { stream_cipher: "aes-256-gcm", create_stream_on_append: true } },
      })
    ).status,
  ).toBe(201);
  await c.close();
});
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

describe("svc with an encryption key", () => {
  it("-k, SVC_ENCRYPTION_KEY and --encryption-key-file round-trip; the key is never printed", async () => {
    const uri = `svc://${basin}/s`;
    const w = await svc(["-v", "append", uri, "-k", key], { stdin: "one\ntwo\n" });
    expect(w.code, w.stderr).toBe(0);
    const file = join(scratchDir("svc-key-"), "key");
    writeFileSync(file, `${key}\n`);
    const viaFile = await svc(["append", uri, "--encryption-key-file", file], { stdin: "three\n" });
    expect(viaFile.code, viaFile.stderr).toBe(0);
    for (const transport of ["session", "unary"]) {
      const r = await svc(["-v", "read", uri, "-s", "0", "-e", "--transport", transport], {
        env: { SVC_ENCRYPTION_KEY: key },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe("one\ntwo\nthree\n");
      expect(r.stderr).not.toContain(key);
    }
    expect(w.stdout + w.stderr).not.toContain(key);
  });

  it("without the key, or with a wrong one, reads fail clearly; a malformed key is exit 2", async () => {
    const uri = `svc://${basin}/s`;
    const none = await svc(["read", uri, "-s", "0", "-e", "--transport", "unary"]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/encryption key/);
    const wrong = randomBytes(32).toString("base64");
    const bad = await svc(["read", uri, "-s", "0", "-e", "--transport", "unary", "-k", wrong]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/decrypt/);
    expect(bad.stderr).not.toContain(wrong);
    const malformed = await svc(["read", uri, "-s", "0", "-e", "-k", "not-a-key"]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).not.toContain("not-a-key");
  });
});
