/**
 * Name rules against protocol.md §10.1, one for the client and lite alike:
 *
 *   basin name       8..48 characters of [a-z0-9-], not beginning or ending with a hyphen
 *   stream name      1..512 bytes of UTF-8, not "." or "..", no lone UTF-16 surrogate, no NUL
 *   access token id  1..96 bytes of UTF-8, not "." or "..", no lone UTF-16 surrogate, no NUL
 *
 * NUL was accepted on lmdb and failed on PostgreSQL (whose text cannot hold it) with the
 * driver's message: it is refused everywhere, by lite as 422 wherever the name comes from.
 * The client used to accept a stream name or token id holding a lone surrogate that lite
 * refuses, and the two sides worded every refusal differently.
 */
import { describe, expect, it } from "vitest";
import { clientFail, serverFail } from "../../../src/errors.js";
import {
  badName,
  basinNameProblem,
  basinPrefixProblem,
  checkName,
  streamNameProblem,
  tokenIdProblem,
} from "../../../src/rules/names.js";
import { svcErrorOf } from "../../helpers/svc-error.js";

describe("basin names", () => {
  it.each(["my-basin-01", "a".repeat(8), "0".repeat(48), "a-------b", "12345678"])("%s keeps the rule", (name) => {
    expect(basinNameProblem(name)).toBeUndefined();
  });

  it.each<[string, string]>([
    ["short", "must be 8 to 48 characters long (got 5)"],
    ["a".repeat(49), "must be 8 to 48 characters long (got 49)"],
    ["", "must be 8 to 48 characters long (got 0)"],
    ["My-basin-01", "may contain only lowercase letters, digits and hyphens"],
    ["my_basin_01", "may contain only lowercase letters, digits and hyphens"],
    ["my-basin-é1", "may contain only lowercase letters, digits and hyphens"],
    ["-my-basin-01", "must not begin or end with a hyphen"],
    ["my-basin-01-", "must not begin or end with a hyphen"],
  ])("%j: %s", (name, problem) => {
    expect(basinNameProblem(name)).toBe(problem);
  });
});

describe("stream names and access token ids", () => {
  it.each(["s", "x".repeat(512), "é".repeat(256), "a/b", "with space", "...", "😀"])(
    "stream %j keeps the rule",
    (name) => {
      expect(streamNameProblem(name)).toBeUndefined();
    },
  );

  it.each<[string, string]>([
    ["", "must not be empty"],
    ["x".repeat(513), "must be at most 512 UTF-8 bytes (got 513)"],
    ["é".repeat(256) + "x", "must be at most 512 UTF-8 bytes (got 513)"],
    [".", 'must not be "." or ".."'],
    ["..", 'must not be "." or ".."'],
    ["a\udc80b", "must be Unicode text, but it holds a lone UTF-16 surrogate, which UTF-8 cannot carry"],
    ["\ud83d", "must be Unicode text, but it holds a lone UTF-16 surrogate, which UTF-8 cannot carry"],
    ["\0", "must not contain NUL (U+0000)"],
    ["a\0b", "must not contain NUL (U+0000)"],
    ["x".repeat(600) + "\0", "must not contain NUL (U+0000)"],
  ])("stream %j: %s", (name, problem) => {
    expect(streamNameProblem(name)).toBe(problem);
  });

  it("token ids: the same rule with 96 bytes", () => {
    expect(tokenIdProblem("t".repeat(96))).toBeUndefined();
    expect(tokenIdProblem("t".repeat(97))).toBe("must be at most 96 UTF-8 bytes (got 97)");
    expect(tokenIdProblem("")).toBe("must not be empty");
    expect(tokenIdProblem("..")).toBe('must not be "." or ".."');
    expect(tokenIdProblem("id\ud800")).toMatch(/lone UTF-16 surrogate/);
    expect(tokenIdProblem("id\0")).toBe("must not contain NUL (U+0000)");
  });

  it("a basin name with NUL says so, not that its characters are wrong", () => {
    expect(basinNameProblem("my-basin\0")).toBe("must not contain NUL (U+0000)");
  });

  it("checkName throws a NUL with the caller's failNul (lite: 422), other faults with fail", () => {
    const err = (name: string) =>
      svcErrorOf(() => checkName("stream", name, serverFail("bad_path"), serverFail("invalid")));
    expect(err("a\0b").code).toBe("invalid");
    expect(err("..").code).toBe("bad_path");
    expect(svcErrorOf(() => checkName("stream", "a\0b", clientFail("usage"))).code).toBe("usage");
  });
});

describe("the message and whose error it is", () => {
  it("names the kind and the name, then the rule", () => {
    expect(badName("basin", "Bad_Name")).toBe(
      'invalid basin name "Bad_Name": may contain only lowercase letters, digits and hyphens',
    );
    expect(badName("stream", "a\udc80b")).toBe(
      'invalid stream name "a\\udc80b": must be Unicode text, but it holds a lone UTF-16 surrogate, which UTF-8 cannot carry',
    );
    expect(badName("token", "")).toBe('invalid access token id "": must not be empty');
    expect(badName("stream", "ok")).toBeUndefined();
  });

  it("shows at most 60 characters of a long name, never half of a surrogate pair", () => {
    expect(badName("stream", "x".repeat(600))).toBe(
      `invalid stream name "${"x".repeat(60)}…": must be at most 512 UTF-8 bytes (got 600)`,
    );
    expect(badName("stream", "😀".repeat(200))).toBe(
      `invalid stream name "${"😀".repeat(60)}…": must be at most 512 UTF-8 bytes (got 800)`,
    );
    expect(badName("basin", "a".repeat(64))).toBe(
      `invalid basin name "${"a".repeat(64)}": must be 8 to 48 characters long (got 64)`,
    );
  });

  it("checkName returns a good name and throws the caller's error for a bad one: the same message on both sides", () => {
    expect(checkName("basin", "my-basin-01", clientFail("usage"))).toBe("my-basin-01");
    const client = svcErrorOf(() => checkName("stream", "..", clientFail("usage")));
    const server = svcErrorOf(() => checkName("stream", "..", serverFail("bad_path")));
    expect([client.code, client.origin, client.status]).toEqual(["usage", "client", undefined]);
    expect([server.code, server.origin, server.status]).toEqual(["bad_path", "server", 400]);
    expect(client.message).toBe(server.message);
  });
});

describe("basin-name prefixes (list-basins' prefix and start_after)", () => {
  it("takes the beginning of any valid name, and nothing else", () => {
    for (const ok of ["", "a", "my-basin-", "0", "x".repeat(48)]) expect(basinPrefixProblem(ok), ok).toBeUndefined();
    for (const bad of ["-a", "A", "my_basin", "x".repeat(49), "a\u0000"])
      expect(basinPrefixProblem(bad), bad).toBeDefined();
  });
});
