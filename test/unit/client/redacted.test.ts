import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Redacted } from "../../../src/client/redacted.js";

describe("client > redacted secrets", () => {
  const secret = new Redacted("tok-123-secret");

  it("never prints through toString, JSON, inspect or template strings", () => {
    expect(String(secret)).toBe("<redacted>");
    expect(`${secret}`).toBe("<redacted>");
    expect(JSON.stringify({ token: secret })).toBe('{"token":"<redacted>"}');
    expect(inspect(secret)).toBe("<redacted>");
    expect(inspect({ nested: { secret } }, { depth: 5 })).not.toContain("tok-123");
  });

  it("reveals only on request", () => {
    expect(secret.reveal()).toBe("tok-123-secret");
    expect(Redacted.from("x")?.reveal()).toBe("x");
    expect(Redacted.from(secret)).toBe(secret);
    expect(Redacted.from(undefined)).toBeUndefined();
  });
});
