/**
 * Command records against protocol.md §8.5 (and §12 items 21, 22, 26, 31).
 *
 *   command record ⇔ exactly one header and its name is empty
 *   fence: body = token, 0..36 UTF-8 bytes          trim: body = exactly 8 bytes, big-endian u64
 *   anything else of that shape (another op, a bad payload) → refused, with the caller's error
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBytes, encodeBytes } from "../../../src/bytes.js";
import { clientFail, serverFail } from "../../../src/errors.js";
import {
  checkCommand,
  commandProblem,
  fenceRecord,
  fencingTokenProblem,
  isCommandRecord,
  readCommand,
  trimRecord,
} from "../../../src/rules/commands.js";
import type { AppendRecord, Header } from "../../../src/types.js";
import { svcErrorOf } from "../../helpers/svc-error.js";

const SEED = Number(process.env.FC_SEED ?? 20260224);

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s+/g, ""), "hex"));
const toHex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const h = (name: string, value: string): Header => ({ name: utf8(name), value: utf8(value) });
const record = (headers: Header[], body: Uint8Array | string = new Uint8Array(0)): AppendRecord => ({
  headers,
  body: typeof body === "string" ? utf8(body) : body,
});
const parse = (r: AppendRecord) => checkCommand(r, serverFail("invalid"));

describe("fence and trim records (§8.5)", () => {
  it('fence: one header, empty name, value "fence", body = the token', () => {
    const r = fenceRecord("tok");
    expect(r.headers.length).toBe(1);
    expect(toHex(r.headers[0]!.name)).toBe("");
    expect(toHex(r.headers[0]!.value)).toBe("66656e6365");
    expect(toHex(r.body)).toBe("746f6b");
    expect(r.timestamp).toBeUndefined();
    expect(fenceRecord("tok", 0).timestamp).toBe(0);
  });

  it("fence with an empty token clears it: empty body", () => {
    expect(fenceRecord("").body.length).toBe(0);
  });

  it("fencing tokens: 36 bytes of UTF-8 keep the rule (ASCII or multi-byte), 37 break it", () => {
    expect(fencingTokenProblem("x".repeat(36))).toBeUndefined();
    expect(fencingTokenProblem("é".repeat(18))).toBeUndefined();
    expect(toHex(fenceRecord("€".repeat(12)).body)).toBe("e282ac".repeat(12));
    expect(fencingTokenProblem("x".repeat(37))).toBe("must be at most 36 UTF-8 bytes (got 37)");
    expect(fencingTokenProblem("€".repeat(12) + "a")).toBe("must be at most 36 UTF-8 bytes (got 37)");
  });

  it.each<[number | bigint, string]>([
    [0, "0000000000000000"],
    [2, "0000000000000002"],
    [5, "0000000000000005"],
    [0x80, "0000000000000080"],
    [0x0102030405060708n, "0102030405060708"],
    [2 ** 53 - 1, "001fffffffffffff"],
    [2n ** 64n - 1n, "ffffffffffffffff"],
  ])('trim to %s: value "trim", body %s (8 bytes, big-endian)', (point, body) => {
    const r = trimRecord(point);
    expect(r.headers.length).toBe(1);
    expect(toHex(r.headers[0]!.name)).toBe("");
    expect(toHex(r.headers[0]!.value)).toBe("7472696d");
    expect(toHex(r.body)).toBe(body);
  });

  it("§4.3 / §12 item 31: trim to 5 in base64 is AAAAAAAAAAU=, trim to 2 is AAAAAAAAAAI=", () => {
    expect(encodeBytes(trimRecord(5).body, "base64")).toBe("AAAAAAAAAAU=");
    expect(encodeBytes(trimRecord(2).body, "base64")).toBe("AAAAAAAAAAI=");
  });

  it("a trim point outside u64 is a programming error, never wrapped around", () => {
    expect(() => trimRecord(-1)).toThrow(RangeError);
    expect(() => trimRecord(2n ** 64n)).toThrow(RangeError);
  });
});

describe("recognising and judging commands (§8.5)", () => {
  it.each<[string, Header[], boolean]>([
    ["one header with an empty name", [h("", "fence")], true],
    ["one header with an empty name and an unknown op", [h("", "x")], true],
    ["one header with an empty name and empty value", [h("", "")], true],
    ["no headers", [], false],
    ["one named header", [h("k", "fence")], false],
    ["two headers, the first with an empty name", [h("", "fence"), h("k", "v")], false],
    ["two headers, both with empty names", [h("", "fence"), h("", "trim")], false],
  ])("%s → command: %s", (_name, headers, expected) => {
    expect(isCommandRecord(record(headers))).toBe(expected);
  });

  it("reads fence and trim", () => {
    expect(parse(fenceRecord("tok"))).toEqual({ op: "fence", token: "tok" });
    expect(parse(fenceRecord(""))).toEqual({ op: "fence", token: "" });
    expect(parse(record([h("", "fence")], "€".repeat(12)))).toEqual({ op: "fence", token: "€".repeat(12) });
    expect(parse(trimRecord(5))).toEqual({ op: "trim", trimPoint: 5n });
    expect(parse(record([h("", "trim")], hex("ff ff ff ff ff ff ff ff")))).toEqual({
      op: "trim",
      trimPoint: 2n ** 64n - 1n,
    });
    expect(parse(record([h("", "trim")], decodeBytes("AAAAAAAAAAI=", "base64")))).toEqual({
      op: "trim",
      trimPoint: 2n,
    });
  });

  it("a leading U+FEFF is part of the token, not a byte-order mark", () => {
    expect(parse(record([h("", "fence")], hex("ef bb bf 74")))).toEqual({ op: "fence", token: "\ufefft" });
  });

  it.each<[string, AppendRecord, RegExp]>([
    ['unknown op "x"', record([h("", "x")]), /^unknown command "x"/],
    ['op in another case ("FENCE")', record([h("", "FENCE")], "t"), /^unknown command "FENCE"/],
    ["op with trailing space", record([h("", "trim ")], new Uint8Array(8)), /^unknown command "trim "/],
    ["empty op", record([h("", "")]), /^unknown command ""/],
    ["trim body of 0 bytes", record([h("", "trim")]), /exactly 8 bytes.*\(got 0\)/],
    ["trim body of 7 bytes", record([h("", "trim")], new Uint8Array(7)), /exactly 8 bytes.*\(got 7\)/],
    ["trim body of 9 bytes", record([h("", "trim")], new Uint8Array(9)), /exactly 8 bytes.*\(got 9\)/],
    ["fence body of 37 bytes", record([h("", "fence")], "x".repeat(37)), /at most 36 bytes \(got 37\)/],
    ["fence body not UTF-8", record([h("", "fence")], hex("ff")), /must be valid UTF-8/],
    ["fence body with a truncated sequence", record([h("", "fence")], hex("e2 82")), /must be valid UTF-8/],
  ])("%s: refused, and not read as a command", (_name, r, message) => {
    expect(commandProblem(r)).toMatch(message);
    expect(readCommand(r)).toBeUndefined();
    const e = svcErrorOf(() => parse(r));
    expect([e.code, e.status, e.origin]).toEqual(["invalid", 422, "server"]);
    expect(e.message).toMatch(message);
  });

  it("the error is the caller's: the same rule fails as the client's own error in svc", () => {
    const e = svcErrorOf(() => checkCommand(record([h("", "x")]), clientFail("bad_input")));
    expect([e.code, e.status, e.origin]).toEqual(["bad_input", undefined, "client"]);
  });

  it("a record that is not a command is not read as one", () => {
    expect(readCommand(record([h("k", "fence")]))).toBeUndefined();
    expect(() => parse(record([]))).toThrow(/not a command record/);
  });

  it("build then read round-trips any token and any trim point (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 9 }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        (token, point) => {
          fc.pre(utf8(token).length <= 36 && !/\p{Surrogate}/u.test(token));
          expect(readCommand(fenceRecord(token))).toEqual({ op: "fence", token });
          expect(readCommand(trimRecord(point))).toEqual({ op: "trim", trimPoint: point });
          const body = trimRecord(point).body;
          expect(new DataView(body.buffer, body.byteOffset, 8).getBigUint64(0, false)).toBe(point);
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });
});
