import { describe, expect, it } from "vitest";
import { formatUri, parseBasinArg, parseBasinOrPrefix, parseStreamUri } from "../../../src/cli/uri.js";

describe("cli > svc:// URIs", () => {
  it("takes everything after the first slash as the stream", () => {
    expect(parseStreamUri("svc://my-basin-01/a/b/c")).toEqual({ basin: "my-basin-01", stream: "a/b/c" });
  });

  it("accepts bare basin names and svc://basin, including a trailing slash", () => {
    expect(parseBasinArg("my-basin-01")).toBe("my-basin-01");
    expect(parseBasinArg("svc://my-basin-01")).toBe("my-basin-01");
    expect(parseBasinArg("svc://my-basin-01/")).toBe("my-basin-01");
  });

  it.each([
    ["my-basin-01/x", /only a basin name was expected/],
    ["svc://my-basin-01/x", /only a basin name was expected/],
    ["http://my-basin-01", /invalid URI scheme `http:\/\/`/],
    ["short", /8 to 48 characters/],
    ["My-Basin-01", /lowercase letters, digits and hyphens/],
    ["-my-basin-01", /must not begin or end with a hyphen/],
    ["my-basin-01-", /must not begin or end with a hyphen/],
    ["a".repeat(49), /8 to 48 characters/],
  ])("rejects basin %j", (text, msg) => {
    expect(() => parseBasinArg(text)).toThrow(msg);
  });

  it.each([
    ["my-basin-01/events", /must begin with `svc:\/\/`/],
    ["svc://my-basin-01", /missing stream name/],
    ["svc://my-basin-01/", /missing stream name/],
    ["svc://my-basin-01/..", /must not be/],
    [
      `svc://my-basin-01/${"x".repeat(513)}`,
      /^invalid stream name "x{60}…": must be at most 512 UTF-8 bytes \(got 513\)$/,
    ],
    ["http://my-basin-01/x", /must be `svc:\/\/` \(or S2's `s2:\/\/`\)/],
  ])("rejects stream URI %j as a usage error", (text, msg) => {
    expect(() => parseStreamUri(text)).toThrow(msg);
    expect(() => parseStreamUri(text)).toThrow(expect.objectContaining({ code: "usage" }));
  });

  it("takes S2's s2:// as svc://", () => {
    expect(parseStreamUri("s2://my-basin-01/a/b")).toEqual({ basin: "my-basin-01", stream: "a/b" });
    expect(parseBasinArg("s2://my-basin-01")).toBe("my-basin-01");
  });

  it("parses a basin with a stream prefix for listing", () => {
    expect(parseBasinOrPrefix("svc://my-basin-01/orders/")).toEqual({ basin: "my-basin-01", stream: "orders/" });
    expect(parseBasinOrPrefix("my-basin-01")).toEqual({ basin: "my-basin-01" });
  });

  it("formats URIs", () => {
    expect(formatUri("my-basin-01")).toBe("svc://my-basin-01");
    expect(formatUri("my-basin-01", "a/b")).toBe("svc://my-basin-01/a/b");
  });
});
