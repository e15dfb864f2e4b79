/**
 * Token secrets. An issued token is `svc.<keyId>.<secret>`: the key id finds the stored token,
 * the secret is checked against its stored sha-256 in constant time. Only the hash is kept.
 * 256 random bits of secret make a plain hash enough (no password stretching needed).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

interface MintedSecret {
  token: string;
  keyId: string;
  hash: string;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function mintSecret(): MintedSecret {
  const keyId = randomBytes(12).toString("base64url");
  const secret = randomBytes(32).toString("base64url");
  return { token: `svc.${keyId}.${secret}`, keyId, hash: sha256Hex(secret) };
}

/** The parts of an issued token, or undefined when it does not have that shape. */
export function splitToken(token: string): { keyId: string; secret: string } | undefined {
  const m = /^svc\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return m ? { keyId: m[1]!, secret: m[2]! } : undefined;
}

/** Constant-time equality of two hex digests of the same length. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
