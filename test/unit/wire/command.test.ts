/**
 * Command records and batch rules against protocol.md §8.1, §8.2, §8.5 (and §12 items 21, 22,
 * 25, 26, 31; Appendix A's metered sizes).
 *
 *   command record ⇔ exactly one header and its name is empty
 *   fence: body = token, 0..36 UTF-8 bytes          trim: body = exactly 8 bytes, big-endian u64
 *   metered(record) = 8 + 2 × headers + Σ (len(name) + len(value)) + len(body)
 *   batch: 1..1000 records, ≤ 1,048,576 metered, each record ≤ 1,048,576; empty header names
 *          only in command records; violations → 422 invalid
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SvcError } from "../../../src/errors.js";
import type { AppendInput, AppendRecord, Header } from "../../../src/types.js";
import {
  decodeBytes, encodeBytes, fenceRecord, fencingTokenBytes, isCommandRecord, meteredBatchSize, meteredSize,
  parseCommand, trimRecord, validateAppendInput, validateRecord,
} from "../../../src/wire/index.js";

const SEED = Number(process.env.FC_SEED ?? 20260224);
const MiB = 1024 * 1024;

function hex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s.replace(/\s+/g, ""), "hex"));
}
function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const h = (name: string, value: string): Header => ({ name: utf8(name), value: utf8(value) });
const record = (headers: Header[], body: Uint8Array | string = new Uint8Array(0)): AppendRecord =>
  ({ headers, body: typeof body === "string" ? utf8(body) : body });
const bodyOf = (n: number): AppendRecord => record([], new Uint8Array(n));

function expectInvalid(fn: () => unknown): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(SvcError);
  expect((caught as SvcError).code).toBe("invalid");
  expect((caught as SvcError).status).toBe(422);
}

// ---------------------------------------------------------------- building commands

describe("fence and trim records (§8.5)", () => {
  it("fence: one header, empty name, value \"fence\", body = the token", () => {
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

  it("fence tokens: 36 bytes accepted (ASCII or multi-byte), 37 refused", () => {
    expect(fenceRecord("x".repeat(36)).body.length).toBe(36);
    expect(toHex(fenceRecord("€".repeat(12)).body)).toBe("e282ac".repeat(12));
    expect(fencingTokenBytes("é".repeat(18)).length).toBe(36);
    expectInvalid(() => fenceRecord("x".repeat(37)));
    expectInvalid(() => fenceRecord("€".repeat(12) + "a"));
    expectInvalid(() => fencingTokenBytes("é".repeat(18) + "a"));
  });

  it.each<[number | bigint, string]>([
    [0, "0000000000000000"],
    [2, "0000000000000002"],
    [5, "0000000000000005"],
    [0x80, "0000000000000080"],
    [0x0102030405060708n, "0102030405060708"],
    [2 ** 53 - 1, "001fffffffffffff"],
    [2n ** 64n - 1n, "ffffffffffffffff"],
  ])("trim to %s: value \"trim\", body %s (8 bytes, big-endian)", (point, body) => {
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

  it("trim points outside u64 are refused", () => {
    expectInvalid(() => trimRecord(-1));
    expectInvalid(() => trimRecord(2n ** 64n));
  });
});

// ---------------------------------------------------------------- recognising commands

describe("recognising and parsing commands (§8.5)", () => {
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

  it("parses fence and trim", () => {
    expect(parseCommand(fenceRecord("tok"))).toEqual({ op: "fence", token: "tok" });
    expect(parseCommand(fenceRecord(""))).toEqual({ op: "fence", token: "" });
    expect(parseCommand(record([h("", "fence")], "€".repeat(12)))).toEqual({ op: "fence", token: "€".repeat(12) });
    expect(parseCommand(trimRecord(5))).toEqual({ op: "trim", trimPoint: 5n });
    expect(parseCommand(record([h("", "trim")], hex("ff ff ff ff ff ff ff ff")))).toEqual({ op: "trim", trimPoint: 2n ** 64n - 1n });
    expect(parseCommand(record([h("", "trim")], decodeBytes("AAAAAAAAAAI=", "base64")))).toEqual({ op: "trim", trimPoint: 2n });
  });

  it.each<[string, AppendRecord]>([
    ["unknown op \"x\"", record([h("", "x")])],
    ["op in another case (\"FENCE\")", record([h("", "FENCE")], "t")],
    ["op with trailing space", record([h("", "trim ")], new Uint8Array(8))],
    ["empty op", record([h("", "")])],
    ["trim body of 0 bytes", record([h("", "trim")])],
    ["trim body of 7 bytes", record([h("", "trim")], new Uint8Array(7))],
    ["trim body of 9 bytes", record([h("", "trim")], new Uint8Array(9))],
    ["fence body of 37 bytes", record([h("", "fence")], "x".repeat(37))],
    ["fence body not UTF-8", record([h("", "fence")], hex("ff"))],
    ["fence body with a truncated sequence", record([h("", "fence")], hex("e2 82"))],
  ])("%s → 422 invalid", (_name, r) => {
    expectInvalid(() => parseCommand(r));
    expectInvalid(() => validateRecord(r));
    expectInvalid(() => validateAppendInput({ records: [r] }));
  });

  it("build then parse round-trips any token and any trim point (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 9 }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (token, point) => {
        fc.pre(utf8(token).length <= 36);
        expect(parseCommand(fenceRecord(token))).toEqual({ op: "fence", token });
        expect(parseCommand(trimRecord(point))).toEqual({ op: "trim", trimPoint: point });
        const body = trimRecord(point).body;
        expect(new DataView(body.buffer, body.byteOffset, 8).getBigUint64(0, false)).toBe(point);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------- metered size

describe("metered size (§8.2)", () => {
  it("a record with no headers and an empty body: 8", () => {
    expect(meteredSize(record([]))).toBe(8);
  });
  it("body \"hello\": 13", () => {
    expect(meteredSize(record([], "hello"))).toBe(13);
  });
  it("fence carrying \"t\": 8 + 2 + 5 + 1 = 16", () => {
    expect(meteredSize(fenceRecord("t"))).toBe(16);
    expect(meteredSize(fenceRecord(""))).toBe(15);
  });
  it("trim: 8 + 2 + 4 + 8 = 22", () => {
    expect(meteredSize(trimRecord(12345))).toBe(22);
  });
  it("Appendix A: 29 + 14 = 43", () => {
    const a = record([h("type", "created")], '{"id":1}');
    const b = record([], "second");
    expect(meteredSize(a)).toBe(29);
    expect(meteredSize(b)).toBe(14);
    expect(meteredBatchSize([a, b])).toBe(43);
  });
  it("bytes, not characters: multi-byte UTF-8 counts each byte", () => {
    expect(meteredSize(record([h("é", "€")], "😀"))).toBe(8 + 2 + 2 + 3 + 4);
  });
  it("matches the formula for random records (property)", () => {
    const bytes = fc.uint8Array({ maxLength: 40 });
    fc.assert(
      fc.property(fc.array(fc.record({ headers: fc.array(fc.record({ name: bytes, value: bytes }), { maxLength: 5 }), body: bytes }), { maxLength: 6 }), (records) => {
        const each = records.map((r) => 8 + 2 * r.headers.length + r.headers.reduce((s, x) => s + x.name.length + x.value.length, 0) + r.body.length);
        expect(records.map((r) => meteredSize(r))).toEqual(each);
        expect(meteredBatchSize(records)).toBe(each.reduce((s, x) => s + x, 0));
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------- batch rules

describe("validateAppendInput (§8.1)", () => {
  it("0 records → 422 invalid", () => {
    expectInvalid(() => validateAppendInput({ records: [] }));
  });

  it("1000 records pass, 1001 are refused", () => {
    const r = record([], "x");
    expect(validateAppendInput({ records: Array<AppendRecord>(1000).fill(r) })).toBe(9000);
    expectInvalid(() => validateAppendInput({ records: Array<AppendRecord>(1001).fill(r) }));
  });

  it("a batch of exactly 1,048,576 metered bytes passes; one byte more is refused", () => {
    const half = MiB / 2 - 8;
    expect(validateAppendInput({ records: [bodyOf(half), bodyOf(half)] })).toBe(MiB);
    expectInvalid(() => validateAppendInput({ records: [bodyOf(half), bodyOf(half + 1)] }));
  });

  it("a batch of many records summing exactly 1 MiB passes (the 8-byte overhead counts)", () => {
    const records = Array.from({ length: 1000 }, (_, i) => bodyOf(i < 576 ? 1041 : 1040));
    expect(meteredBatchSize(records)).toBe(MiB);
    expect(validateAppendInput({ records })).toBe(MiB);
    records[0] = bodyOf(1042);
    expectInvalid(() => validateAppendInput({ records }));
  });

  it("a single record of exactly 1 MiB passes; over 1 MiB is refused", () => {
    expect(validateAppendInput({ records: [bodyOf(MiB - 8)] })).toBe(MiB);
    expectInvalid(() => validateRecord(bodyOf(MiB - 7)));
    expectInvalid(() => validateAppendInput({ records: [bodyOf(MiB - 7)] }));
    expectInvalid(() => validateAppendInput({ records: [record([h("k", "x".repeat(MiB))])] }));
  });

  it.each<[string, Header[]]>([
    ["an empty name next to a command header", [h("", "fence"), h("k", "v")]],
    ["an empty name after a named header", [h("k", "v"), h("", "v")]],
    ["two empty names", [h("", "trim"), h("", "trim")]],
  ])("empty header name outside a command: %s → 422", (_name, headers) => {
    expectInvalid(() => validateRecord(record(headers, "tok")));
    expectInvalid(() => validateAppendInput({ records: [record([], "ok"), record(headers, "tok")] }));
  });

  it("§12 item 25: [\"k\",\"v\"] is fine; [\"\",\"x\"] alone is an unknown command", () => {
    expect(validateAppendInput({ records: [record([h("k", "v")])] })).toBe(8 + 2 + 2);
    expectInvalid(() => validateAppendInput({ records: [record([h("", "x")])] }));
  });

  it("valid command records pass and count toward the batch", () => {
    expect(validateAppendInput({ records: [fenceRecord("tok"), trimRecord(2), fenceRecord("")] })).toBe(18 + 22 + 15);
  });

  it("a fencing_token condition over 36 bytes → 422 (protobuf and session path)", () => {
    const records = [record([], "x")];
    expect(validateAppendInput({ records, fencingToken: "x".repeat(36) })).toBe(9);
    expectInvalid(() => validateAppendInput({ records, fencingToken: "x".repeat(37) }));
    expectInvalid(() => validateAppendInput({ records, fencingToken: "€".repeat(12) + "a" }));
  });

  it("conditions do not count toward the metered size", () => {
    const input: AppendInput = { records: [record([], "hello")], matchSeqNum: 0, fencingToken: "tok" };
    expect(validateAppendInput(input)).toBe(13);
  });
});
