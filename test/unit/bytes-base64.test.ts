/**
 * Strict base64 (protocol.md §4.4) as src/bytes.ts decides it: by round trip through Node's
 * canonical encoder. Held against the definition (standard alphabet, `=` padding to a multiple
 * of 4, canonical trailing bits) over random near-base64 strings.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64Strict } from "../../src/bytes.js";

const SHAPE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The definition: the right shape, and the bits below the last full byte are zero. */
function valid(text: string): boolean {
  if (!SHAPE.test(text)) return false;
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  if (pad === 0) return true;
  const last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".indexOf(text[text.length - pad - 1]!);
  return (last & (pad === 2 ? 0b1111 : 0b11)) === 0;
}

const alphabet = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n.".split("")];

describe("strict base64", () => {
  it("accepts exactly the canonical padded standard encoding", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }).map((a) => a.join("")),
          fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString("base64")),
          fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString("base64url")),
        ),
        (text) => {
          let ok = true;
          try {
            decodeBase64Strict(text);
          } catch {
            ok = false;
          }
          expect(ok, JSON.stringify(text)).toBe(valid(text));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("says which rule a refused text breaks", () => {
    expect(() => decodeBase64Strict("QQ")).toThrow(/^invalid Base64 encoding$/);
    expect(() => decodeBase64Strict("QR==")).toThrow(/non-canonical padding bits/);
    expect(decodeBase64Strict("QQ==")).toEqual(Buffer.from("A"));
  });
});
