/**
 * One encryption-key rule (src/rules/encryption-key.ts) for both faces: svc refuses a key given
 * to it exactly when lite would refuse it in the header, and takes it as the key lite would use.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { resolveEncryptionKey } from "../../../src/cli/encryption-key.js";
import { requestKey } from "../../../src/lite/crypto/record-cipher.js";
import { isEncryptionKeyText } from "../../../src/rules/encryption-key.js";

const key = randomBytes(32).toString("base64");
const SAMPLES: [string, string][] = [
  ["32 bytes", key],
  ["31 bytes", randomBytes(31).toString("base64")],
  ["33 bytes", randomBytes(33).toString("base64")],
  ["64 bytes", randomBytes(64).toString("base64")],
  ["no padding", key.slice(0, 43)],
  ["a character outside base64", `${key.slice(0, 10)}*${key.slice(11)}`],
  ["URL-safe base64", `${"-_".repeat(21)}A=`],
  ["padding twice", `${key.slice(0, 42)}==`],
  ["spaces", ` ${key} `],
  ["empty", ""],
];

const cliTakes = (v: string): boolean => {
  try {
    return resolveEncryptionKey({ encryptionKey: v }, {}) === v;
  } catch {
    return false;
  }
};
const liteTakes = (v: string): boolean => {
  try {
    return requestKey(v, "aes-256-gcm")!.equals(Buffer.from(v, "base64"));
  } catch {
    return false;
  }
};

describe("an encryption key", () => {
  it.each(SAMPLES)("%s: svc and lite judge it alike", (_what, v) => {
    expect(cliTakes(v)).toBe(isEncryptionKeyText(v));
    expect(liteTakes(v)).toBe(isEncryptionKeyText(v));
  });

  it("is taken when it is the base64 of 32 bytes, and only then", () => {
    expect(SAMPLES.filter(([, v]) => isEncryptionKeyText(v)).map(([w]) => w)).toEqual(["32 bytes"]);
  });

  it("lite names the size of a well-formed key of another size", () => {
    expect(() => requestKey(randomBytes(16).toString("base64"), "aes-256-gcm")).toThrow(
      /32-byte key \(this one is 16 bytes\)/,
    );
  });
});
