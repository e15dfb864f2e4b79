/**
 * JSON record shapes and `svc-format` against protocol.md §3.3 and §4 (and §12 items 21–25,
 * and the JSON, base64 and UTF-8 cases of docs/design/reliability.md, "Bad input").
 *
 *   svc-format: absent | raw | json → raw;  base64 | json-binsafe → base64;  trimmed;  else 400 bad_header
 *   raw out:    stored bytes decoded as UTF-8 lossily, ONE U+FFFD per maximal invalid run
 *   base64 in:  standard alphabet, padded, canonical trailing bits, else 422 invalid; "" = no bytes
 *   shapes:     records required (400 bad_json when missing); a header is exactly [name, value];
 *               null body/headers → 400; fencing_token ≤ 36 bytes (JSON: 400 bad_json);
 *               u64 beyond 2^53 − 1 is never rounded
 *
 * Vectors: test/fixtures/wire/json.json (hand-written) and the Appendix A exchanges.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64Strict, decodeBytes, encodeBytes, lossyUtf8 } from "../../../src/bytes.js";
import { SvcError } from "../../../src/errors.js";
import { fenceRecord, trimRecord } from "../../../src/rules/commands.js";
import type { AppendInput, RecordFormat, SequencedRecord } from "../../../src/types.js";
import {
  appendAckFromJson,
  appendAckToJson,
  appendInputFromJson,
  appendInputToJson,
  parseFormat,
  parseJsonText,
  readBatchFromJson,
  readBatchToJson,
  sequencedRecordToJson,
} from "../../../src/wire/json.js";
import { svcErrorOf } from "../../helpers/svc-error.js";

const SEED = Number(process.env.FC_SEED ?? 20260224);

function hex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s.replace(/\s+/g, ""), "hex"));
}
function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

function expectCode(fn: () => unknown, code: string, status: number | undefined): void {
  const e = svcErrorOf(fn);
  expect(e.code).toBe(code);
  expect(e.status).toBe(status);
}

/** RFC 4648 §4 base64, written out for the test. */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function refBase64(b: Uint8Array): string {
  let out = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    out += i + 1 < b.length ? ALPHABET[(n >> 6) & 63]! : "=";
    out += i + 2 < b.length ? ALPHABET[n & 63]! : "=";
  }
  return out;
}

/** §4.3 lossy decoding, written from the rule with the platform's strict decoder as the judge. */
function refLossy(b: Uint8Array): string {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // keep U+FEFF: it is data
  let out = "";
  let invalidRun = false;
  for (let i = 0; i < b.length; ) {
    let n = 0;
    for (let len = 1; len <= 4 && i + len <= b.length; len++) {
      try {
        const s = strict.decode(b.subarray(i, i + len));
        if ([...s].length === 1) {
          n = len;
          out += (invalidRun ? "\ufffd" : "") + s;
          invalidRun = false;
          break;
        }
      } catch {
        /* not a complete sequence of this length */
      }
    }
    if (n === 0) {
      invalidRun = true;
      i += 1;
    } else i += n;
  }
  return out + (invalidRun ? "\ufffd" : "");
}

interface Fixtures {
  base64: { valid: [string, string][]; invalid: string[] };
  lossyUtf8: [string, string][];
}
const fixtures = JSON.parse(
  readFileSync(new URL("../../fixtures/wire/json.json", import.meta.url), "utf8"),
) as Fixtures;

// ---------------------------------------------------------------- svc-format

describe("svc-format header (§4.2)", () => {
  it.each<[string | undefined, RecordFormat]>([
    [undefined, "raw"],
    ["raw", "raw"],
    ["base64", "base64"],
    ["json", "raw"],
    ["json-binsafe", "base64"],
    ["  base64  ", "base64"],
    ["\traw\t", "raw"],
    [" json-binsafe", "base64"],
    ["json ", "raw"],
  ])("%j → %s", (header, expected) => {
    expect(parseFormat(header)).toBe(expected);
  });

  it.each(["hex", "base-64", "b64", "base64url", "utf8", "raw,base64", "ra w", "binary"])(
    "%j → 400 bad_header",
    (header) => {
      expectCode(() => parseFormat(header), "bad_header", 400);
    },
  );
});

// ---------------------------------------------------------------- base64

describe("strict base64 (§4.4)", () => {
  it.each(fixtures.base64.valid)("%j decodes to %s and encodes back", (text, bytes) => {
    expect(toHex(decodeBase64Strict(text))).toBe(bytes);
    expect(toHex(decodeBytes(text, "base64"))).toBe(bytes);
    expect(encodeBytes(hex(bytes), "base64")).toBe(text);
  });

  it.each(fixtures.base64.invalid)("%j → 422 invalid", (text) => {
    expectCode(() => decodeBase64Strict(text), "invalid", 422);
    expectCode(() => decodeBytes(text, "base64"), "invalid", 422);
  });

  it("every single byte value: the canonical form decodes, the 15 non-canonical siblings are refused", () => {
    for (let b = 0; b < 256; b++) {
      const canonical = ALPHABET[b >> 2]! + ALPHABET[(b & 3) << 4]! + "==";
      expect(refBase64(new Uint8Array([b]))).toBe(canonical);
      expect(encodeBytes(new Uint8Array([b]), "base64")).toBe(canonical);
      expect(toHex(decodeBase64Strict(canonical))).toBe(toHex(new Uint8Array([b])));
      for (let low = 1; low < 16; low++) {
        const sibling = ALPHABET[b >> 2]! + ALPHABET[((b & 3) << 4) | low]! + "==";
        expect(() => decodeBase64Strict(sibling), sibling).toThrow(SvcError);
      }
    }
  });

  it("two-byte groups: the last character's 2 low bits must be zero", () => {
    for (const low of [1, 2, 3]) {
      const text = "aG" + ALPHABET[ALPHABET.indexOf("k") | low]! + "=";
      expectCode(() => decodeBase64Strict(text), "invalid", 422);
    }
  });

  it("all 256 byte values round-trip in one value", () => {
    const all = new Uint8Array(256).map((_, i) => i);
    const text = encodeBytes(all, "base64");
    expect(text).toBe(refBase64(all));
    expect(toHex(decodeBytes(text, "base64"))).toBe(toHex(all));
  });

  it("random bytes: the encoding is RFC 4648 and decodes back (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const text = encodeBytes(bytes, "base64");
        expect(text).toBe(refBase64(bytes));
        expect(toHex(decodeBytes(text, "base64"))).toBe(toHex(bytes));
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("strings outside the canonical form are refused (property): any text the decoder accepts re-encodes to itself", () => {
    const chars = fc.constantFrom(..."AaQgk048+/=-_ \n@".split(""));
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 12 }).map((cs) => cs.join("")),
        (text) => {
          let bytes: Uint8Array;
          try {
            bytes = decodeBase64Strict(text);
          } catch (e) {
            expect(e).toBeInstanceOf(SvcError);
            expect((e as SvcError).code).toBe("invalid");
            return;
          }
          expect(refBase64(bytes)).toBe(text);
        },
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });
});

// ---------------------------------------------------------------- raw format

describe("raw format (§4.3)", () => {
  it.each(fixtures.lossyUtf8)("bytes %s read as raw give %j", (bytes, text) => {
    expect(refLossy(hex(bytes))).toBe(text); // the fixture agrees with the rule
    expect(lossyUtf8(hex(bytes))).toBe(text);
    expect(encodeBytes(hex(bytes), "raw")).toBe(text);
  });

  it('§12 item 24: ff fe written as base64, read as raw → "\\ufffd", read as base64 → "//4="', () => {
    const stored = decodeBytes("//4=", "base64");
    expect(toHex(stored)).toBe("fffe");
    expect(encodeBytes(stored, "raw")).toBe("\ufffd");
    expect(JSON.stringify(encodeBytes(stored, "raw"))).toBe('"\ufffd"');
    expect(encodeBytes(stored, "base64")).toBe("//4=");
  });

  it("lossy decoding matches the rule for random byte strings (property)", () => {
    const piece = fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => [b]),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).map((s) => [...utf8(s)]),
      fc.constantFrom(
        [0xe2, 0x82],
        [0xf0, 0x9f],
        [0xed, 0xa0, 0x80],
        [0xc0, 0x80],
        [0xef, 0xbf, 0xbd],
        [0xef, 0xbb, 0xbf],
        [0x80],
        [0xff],
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const bytes = new Uint8Array(pieces.flat());
        expect(lossyUtf8(bytes)).toBe(refLossy(bytes));
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("any Unicode text round-trips through raw, stored as its UTF-8 (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
        const stored = decodeBytes(text, "raw");
        expect(toHex(stored)).toBe(toHex(utf8(text)));
        expect(encodeBytes(stored, "raw")).toBe(text);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("JSON escapes are data: \\u0000 is stored as one zero byte", () => {
    const input = appendInputFromJson(parseJsonText('{"records":[{"body":"a\\u0000b"}]}'), "raw");
    expect(toHex(input.records[0]!.body)).toBe("610062");
  });

  it("a lone surrogate in raw text is refused (400 bad_json), never stored as U+FFFD", () => {
    for (const text of ["\ud800", "a\udc00", "\ud800\ud800\udc00"])
      expectCode(() => decodeBytes(text, "raw"), "bad_json", 400);
    expect(toHex(decodeBytes("\ud83d\ude00", "raw"))).toBe("f09f9880");
  });

  it("a trim body survives raw only when every byte is below 0x80 (§4.3)", () => {
    const five = trimRecord(5).body;
    expect(toHex(decodeBytes(encodeBytes(five, "raw"), "raw"))).toBe(toHex(five));
    const high = trimRecord(0x80).body;
    expect(toHex(decodeBytes(encodeBytes(high, "raw"), "raw"))).not.toBe(toHex(high));
  });
});

// ---------------------------------------------------------------- integers

describe("parseJsonText never rounds (reliability §2.c)", () => {
  it.each([
    "9007199254740993",
    "9007199254740992",
    "-9007199254740993",
    "18446744073709551615",
    '{"match_seq_num":9007199254740993}',
    '{"records":[{"timestamp":9007199254740993}]}',
    "[1,[2,[9007199254740993]]]",
    "1e16",
  ])("%s → out_of_range (svc lite: 422 invalid, as for protobuf and frames)", (text) => {
    expectCode(() => parseJsonText(text), "out_of_range", undefined);
  });

  it.each([
    ["9007199254740991", 9007199254740991],
    ["0", 0],
    ["1.5", 1.5],
    ['{"a":[9007199254740991]}', { a: [9007199254740991] }],
  ])("%s parses exactly", (text, value) => {
    expect(parseJsonText(text)).toEqual(value);
  });

  it.each(["", "{", '{"records":[}', "nul", "{'a':1}"])("malformed %j → 400 bad_json", (text) => {
    expectCode(() => parseJsonText(text), "bad_json", 400);
  });

  it("10,000-deep nesting: parsed or bad_json, never a stack overflow", () => {
    const text = "[".repeat(10_000) + "]".repeat(10_000);
    try {
      parseJsonText(text);
    } catch (e) {
      expect(e).toBeInstanceOf(SvcError);
      expect((e as SvcError).code).toBe("bad_json");
    }
    const obj = '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000);
    try {
      parseJsonText(obj);
    } catch (e) {
      expect(e).toBeInstanceOf(SvcError);
    }
  });
});

// ---------------------------------------------------------------- AppendInput shapes

describe("AppendInput from JSON (§3.3, §8.1)", () => {
  const parse = (text: string, format: RecordFormat = "raw"): AppendInput =>
    appendInputFromJson(parseJsonText(text), format);

  it("Appendix A: the raw append request", () => {
    const input = parse(
      '{"records":[{"headers":[["type","created"]],"body":"{\\"id\\":1}"},{"body":"second","timestamp":1767225600000}],"match_seq_num":0}',
    );
    expect(input.matchSeqNum).toBe(0);
    expect(input.fencingToken).toBeUndefined();
    expect(input.records.length).toBe(2);
    expect(toHex(input.records[0]!.headers[0]!.name)).toBe(toHex(utf8("type")));
    expect(toHex(input.records[0]!.headers[0]!.value)).toBe(toHex(utf8("created")));
    expect(toHex(input.records[0]!.body)).toBe(toHex(utf8('{"id":1}')));
    expect(input.records[0]!.timestamp).toBeUndefined();
    expect(input.records[1]!.timestamp).toBe(1767225600000);
    expect(input.records[1]!.headers).toEqual([]);
  });

  it("defaults: no headers, empty body, no timestamp, no conditions", () => {
    const input = parse('{"records":[{}]}');
    expect(input.records[0]!.headers).toEqual([]);
    expect(input.records[0]!.body.length).toBe(0);
    expect(input.records[0]!.timestamp).toBeUndefined();
    expect(input.matchSeqNum).toBeUndefined();
    expect(input.fencingToken).toBeUndefined();
  });

  it("null timestamp, match_seq_num and fencing_token mean absent", () => {
    const input = parse('{"records":[{"timestamp":null}],"match_seq_num":null,"fencing_token":null}');
    expect(input.records[0]!.timestamp).toBeUndefined();
    expect(input.matchSeqNum).toBeUndefined();
    expect(input.fencingToken).toBeUndefined();
  });

  it("an empty records array parses (the batch rule, 422, is checked separately)", () => {
    expect(parse('{"records":[]}').records).toEqual([]);
  });

  it.each([
    ["{}", "missing records"],
    ['{"records":null}', "records null"],
    ['{"records":{}}', "records an object"],
    ['{"records":"x"}', "records a string"],
    ["[]", "body an array"],
    ["null", "body null"],
    ['"records"', "body a string"],
    ['{"records":[null]}', "a null record"],
    ['{"records":[1]}', "a number record"],
    ['{"records":[[]]}', "an array record"],
    ['{"records":[{"headers":[["a"]]}]}', "a header of 1 element"],
    ['{"records":[{"headers":[["a","b","c"]]}]}', "a header of 3 elements"],
    ['{"records":[{"headers":[[]]}]}', "a header of 0 elements"],
    ['{"records":[{"headers":[["a",1]]}]}', "a header value that is a number"],
    ['{"records":[{"headers":[[null,"b"]]}]}', "a header name that is null"],
    ['{"records":[{"headers":["ab"]}]}', "a header that is a string"],
    ['{"records":[{"headers":{"a":"b"}}]}', "headers an object"],
    ['{"records":[{"headers":null}]}', "headers null"],
    ['{"records":[{"body":null}]}', "body null"],
    ['{"records":[{"body":5}]}', "body a number"],
    ['{"records":[{"body":{}}]}', "body an object"],
    ['{"records":[{"timestamp":"5"}]}', "timestamp a string"],
    ['{"records":[{"timestamp":-1}]}', "timestamp negative"],
    ['{"records":[{"timestamp":1.5}]}', "timestamp a float"],
    ['{"records":[],"match_seq_num":"0"}', "match_seq_num a string"],
    ['{"records":[],"match_seq_num":-1}', "match_seq_num negative"],
    ['{"records":[],"match_seq_num":0.5}', "match_seq_num a float"],
    ['{"records":[],"fencing_token":5}', "fencing_token a number"],
    ['{"records":[],"fencing_token":"0123456789012345678901234567890123456"}', "fencing_token of 37 bytes"],
    ['{"records":[],"fencing_token":"€€€€€€€€€€€€a"}', "fencing_token of 37 UTF-8 bytes (12 × 3 + 1)"],
  ])("%s (%s) → 400 bad_json", (text) => {
    expectCode(() => parse(text), "bad_json", 400);
  });

  it("match_seq_num 2^53 (already a JS number) → out_of_range; 2^53 - 1 is kept exactly", () => {
    expectCode(() => appendInputFromJson({ records: [], match_seq_num: 2 ** 53 }, "raw"), "out_of_range", undefined);
    expectCode(() => appendInputFromJson({ records: [{ timestamp: 2 ** 53 }] }, "raw"), "out_of_range", undefined);
    expect(appendInputFromJson({ records: [], match_seq_num: 2 ** 53 - 1 }, "raw").matchSeqNum).toBe(2 ** 53 - 1);
  });

  it("fencing_token of exactly 36 bytes is accepted (ASCII and multi-byte)", () => {
    expect(parse('{"records":[],"fencing_token":"012345678901234567890123456789012345"}').fencingToken).toHaveLength(
      36,
    );
    expect(parse('{"records":[],"fencing_token":"€€€€€€€€€€€€"}').fencingToken).toBe("€".repeat(12));
    expect(parse('{"records":[],"fencing_token":""}').fencingToken).toBe("");
  });

  it("the fencing_token is a plain string in either format (§4.1)", () => {
    expect(parse('{"records":[],"fencing_token":"aGk="}', "base64").fencingToken).toBe("aGk=");
  });

  it("base64 format: headers and body are decoded; invalid base64 → 422 invalid", () => {
    const input = parse('{"records":[{"headers":[["","ZmVuY2U="]],"body":"dG9r"}]}', "base64");
    expect(toHex(input.records[0]!.headers[0]!.name)).toBe("");
    expect(toHex(input.records[0]!.headers[0]!.value)).toBe(toHex(utf8("fence")));
    expect(toHex(input.records[0]!.body)).toBe(toHex(utf8("tok")));
    expect(toHex(parse('{"records":[{"body":"aGk="}]}', "base64").records[0]!.body)).toBe("6869");
    for (const body of ["a", "aGk", "@@@@", "aGl="]) {
      expectCode(() => parse(`{"records":[{"body":${JSON.stringify(body)}}]}`, "base64"), "invalid", 422);
    }
    expectCode(() => parse('{"records":[{"headers":[["@@@@","aGk="]]}]}', "base64"), "invalid", 422);
    expectCode(() => parse('{"records":[{"headers":[["aGk=","aGk"]]}]}', "base64"), "invalid", 422);
  });

  it("toJson → text → fromJson round-trips any input in base64, and UTF-8 input in raw (property)", () => {
    const bytes = fc.uint8Array({ maxLength: 20 });
    const textBytes = fc.string({ unit: "binary", maxLength: 10 }).map(utf8);
    const inputArb = (b: fc.Arbitrary<Uint8Array>): fc.Arbitrary<AppendInput> =>
      fc.record({
        records: fc.array(
          fc.record({
            timestamp: fc.option(fc.maxSafeNat(), { nil: undefined }),
            headers: fc.array(fc.record({ name: b, value: b }), { maxLength: 3 }),
            body: b,
          }),
          { maxLength: 4 },
        ),
        matchSeqNum: fc.option(fc.maxSafeNat(), { nil: undefined }),
        fencingToken: fc.option(fc.string({ maxLength: 36, unit: "grapheme-ascii" }), { nil: undefined }),
      });
    const view = (x: AppendInput): unknown => ({
      records: x.records.map((r) => ({
        t: r.timestamp,
        h: r.headers.map((h) => [toHex(h.name), toHex(h.value)]),
        b: toHex(r.body),
      })),
      m: x.matchSeqNum,
      f: x.fencingToken,
    });
    for (const [format, arb] of [
      ["base64", inputArb(bytes)],
      ["raw", inputArb(textBytes)],
    ] as const) {
      fc.assert(
        fc.property(arb, (input) => {
          const text = JSON.stringify(appendInputToJson(input, format));
          expect(view(appendInputFromJson(parseJsonText(text), format))).toEqual(view(input));
        }),
        { seed: SEED, numRuns: 1000 },
      );
    }
  });

  it("appendInputToJson keeps match_seq_num 0", () => {
    expect(appendInputToJson({ records: [], matchSeqNum: 0 }, "raw")).toStrictEqual({ records: [], match_seq_num: 0 });
  });
});

// ---------------------------------------------------------------- responses

describe("responses (§3.3): empty fields omitted", () => {
  const rec = (over: Partial<SequencedRecord>): SequencedRecord => ({
    seqNum: 7,
    timestamp: 1000,
    headers: [],
    body: new Uint8Array(0),
    ...over,
  });

  it.each(["raw", "base64"] as const)(
    "SequencedRecord with no headers and an empty body is {seq_num, timestamp} (%s)",
    (format) => {
      expect(JSON.stringify(sequencedRecordToJson(rec({}), format))).toBe('{"seq_num":7,"timestamp":1000}');
      expect(JSON.stringify(sequencedRecordToJson(rec({ seqNum: 0, timestamp: 0 }), format))).toBe(
        '{"seq_num":0,"timestamp":0}',
      );
    },
  );

  it("body without headers, headers without body", () => {
    expect(sequencedRecordToJson(rec({ body: utf8("hi") }), "raw")).toStrictEqual({
      seq_num: 7,
      timestamp: 1000,
      body: "hi",
    });
    expect(sequencedRecordToJson(rec({ body: utf8("hi") }), "base64")).toStrictEqual({
      seq_num: 7,
      timestamp: 1000,
      body: "aGk=",
    });
    expect(
      sequencedRecordToJson(rec({ headers: [{ name: utf8("k"), value: new Uint8Array(0) }] }), "raw"),
    ).toStrictEqual({ seq_num: 7, timestamp: 1000, headers: [["k", ""]] });
  });

  it('command records read back as [["","fence"]] / [["","trim"]], ZmVuY2U= / dHJpbQ== in base64', () => {
    const fence = fenceRecord("tok");
    expect(sequencedRecordToJson(rec(fence), "raw")).toStrictEqual({
      seq_num: 7,
      timestamp: 1000,
      headers: [["", "fence"]],
      body: "tok",
    });
    expect(sequencedRecordToJson(rec(fence), "base64")).toStrictEqual({
      seq_num: 7,
      timestamp: 1000,
      headers: [["", "ZmVuY2U="]],
      body: "dG9r",
    });
    expect(sequencedRecordToJson(rec(fenceRecord("")), "base64")).toStrictEqual({
      seq_num: 7,
      timestamp: 1000,
      headers: [["", "ZmVuY2U="]],
    });
    expect(sequencedRecordToJson(rec(trimRecord(5)), "base64")).toStrictEqual({
      seq_num: 7,
      timestamp: 1000,
      headers: [["", "dHJpbQ=="]],
      body: "AAAAAAAAAAU=",
    });
  });

  it("ReadBatch omits tail when absent, and has it when present", () => {
    expect(JSON.stringify(readBatchToJson({ records: [] }, "raw"))).toBe('{"records":[]}');
    expect(readBatchToJson({ records: [], tail: { seqNum: 5, timestamp: 1000 } }, "raw")).toStrictEqual({
      records: [],
      tail: { seq_num: 5, timestamp: 1000 },
    });
    expect(readBatchToJson({ records: [], tail: { seqNum: 0, timestamp: 0 } }, "raw")).toStrictEqual({
      records: [],
      tail: { seq_num: 0, timestamp: 0 },
    });
  });

  it("Appendix A: the base64 read response, both ways", () => {
    const text =
      '{"records":[{"seq_num":0,"timestamp":1767225600000,"headers":[["dHlwZQ==","Y3JlYXRlZA=="]],"body":"eyJpZCI6MX0="},' +
      '{"seq_num":1,"timestamp":1767225600000,"body":"c2Vjb25k"}]}';
    const batch = readBatchFromJson(parseJsonText(text), "base64");
    expect(batch.tail).toBeUndefined();
    expect(batch.records.map((r) => [r.seqNum, r.timestamp, r.headers.length, Buffer.from(r.body).toString()])).toEqual(
      [
        [0, 1767225600000, 1, '{"id":1}'],
        [1, 1767225600000, 0, "second"],
      ],
    );
    expect(readBatchToJson(batch, "base64")).toStrictEqual(JSON.parse(text));
    expect(readBatchToJson(batch, "raw")).toStrictEqual({
      records: [
        { seq_num: 0, timestamp: 1767225600000, headers: [["type", "created"]], body: '{"id":1}' },
        { seq_num: 1, timestamp: 1767225600000, body: "second" },
      ],
    });
  });

  it("Appendix A: the append ack", () => {
    const text =
      '{"start":{"seq_num":0,"timestamp":1767225600000},"end":{"seq_num":2,"timestamp":1767225600000},"tail":{"seq_num":2,"timestamp":1767225600000}}';
    const ack = appendAckFromJson(parseJsonText(text));
    expect(ack).toEqual({
      start: { seqNum: 0, timestamp: 1767225600000 },
      end: { seqNum: 2, timestamp: 1767225600000 },
      tail: { seqNum: 2, timestamp: 1767225600000 },
    });
    expect(appendAckToJson(ack)).toStrictEqual(JSON.parse(text));
  });

  it("an ack position without both fields → bad_json", () => {
    expectCode(
      () =>
        appendAckFromJson({
          start: { seq_num: 0 },
          end: { seq_num: 1, timestamp: 0 },
          tail: { seq_num: 1, timestamp: 0 },
        }),
      "bad_json",
      400,
    );
  });
});
