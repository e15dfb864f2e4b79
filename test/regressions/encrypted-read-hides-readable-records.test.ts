/**
 * Bug (user trial): on an encrypted stream written with two keys, a read stopped at the first
 * record it could not decrypt, printing none of the readable records before it and not naming
 * that record; reading without a key gave an error in protocol terms (`send
 * svc-encryption-key: …`) instead of naming svc's `-k` / `--encryption-key-file`.
 *
 * Now every record before the first one the key cannot decrypt is printed, then the read fails
 * (400 decryption_failed, exit 2) naming that record's sequence number; a missing key gets a
 * hint naming -k, --encryption-key-file and SVC_ENCRYPTION_KEY.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
let env: Record<string, string>;
const basin = uniqueBasin("enc");
const uri = `svc://${basin}/s`;
const keyA = randomBytes(32).toString("base64");
const keyB = randomBytes(32).toString("base64");

beforeAll(async () => {
  lite = await startLite();
  env = cliEnv(lite);
  await createStreams(lite, basin, ["s"], { stream_cipher: "aes-256-gcm" });
  const lines = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `r${from + i}\n`).join("");
  for (const [key, from, n] of [
    [keyA, 0, 700],
    [keyB, 700, 2],
    [keyA, 702, 3],
  ] as const) {
    const r = await runSvc(["append", uri, "-k", key, "-q"], { env, stdin: lines(from, n) });
    expect(r.code, r.stderr).toBe(0);
  }
}, 60_000);
afterAll(async () => {
  await lite?.stop();
});

describe("reading an encrypted stream written with two keys", () => {
  it.each(["session", "unary", "sse"])(
    "prints every record before the first it cannot decrypt, then names it (%s)",
    async (transport) => {
      const r = await runSvc(["read", uri, "-s", "0", "-e", "-k", keyA, "--transport", transport], {
        env,
        timeoutMs: 60_000,
      });
      expect(r.code, r.stderr).toBe(2);
      const got = r.stdout.trim().split("\n");
      expect(got).toHaveLength(700);
      expect(got[699]).toBe("r699");
      expect(r.stderr).toContain("record 700 cannot be decrypted with the encryption key given");
      expect(r.stderr).toContain(
        "hint: svc sends the key from -k/--encryption-key, --encryption-key-file or SVC_ENCRYPTION_KEY",
      );
    },
    60_000,
  );

  it("without a key, the hint names svc's flags", async () => {
    const r = await runSvc(["read", uri, "-s", "0", "-e"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "hint: an encrypted stream needs its key: give it with -k KEY, --encryption-key-file FILE or SVC_ENCRYPTION_KEY",
    );
  });
});
