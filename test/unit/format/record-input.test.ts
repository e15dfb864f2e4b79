import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAppendInput } from "../../../src/client/appender.js";
import { SvcError } from "../../../src/errors.js";
import { parseFormatName } from "../../../src/format/format-name.js";
import { parseHeaderFlag, parseJsonRecord, RecordInputError, textRecord } from "../../../src/format/record-input.js";
import { renderJson } from "../../../src/format/record-output.js";
import type { SequencedRecord } from "../../../src/types.js";

const bytes = fc.uint8Array({ maxLength: 64 });
const header = fc.record({
  name: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  value: fc.uint8Array({ maxLength: 16 }),
});
const record = fc.record({
  seqNum: fc.nat(),
  timestamp: fc.nat(),
  headers: fc.array(header, { maxLength: 4 }),
  body: bytes,
}) as fc.Arbitrary<SequencedRecord>;
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff);
const unicode = fc.array(codePoint, { maxLength: 24 }).map((cps) => String.fromCodePoint(...cps));

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

describe("format > record-input", () => {
  it("json-base64 round-trips any bytes (read output fed back to append)", () => {
    fc.assert(
      fc.property(record, fc.boolean(), (r, omitEmpty) => {
        const back = parseJsonRecord(renderJson(r, { base64: true, omitEmpty }), true);
        expect(back.timestamp).toBe(r.timestamp);
        expect(same(back.body, r.body)).toBe(true);
        expect(back.headers.length).toBe(r.headers.length);
        back.headers.forEach((h, i) => {
          expect(same(h.name, r.headers[i]!.name)).toBe(true);
          expect(same(h.value, r.headers[i]!.value)).toBe(true);
        });
      }),
      { numRuns: 1000 },
    );
  });

  it("every byte value survives json-base64", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const r: SequencedRecord = {
      seqNum: 1,
      timestamp: 2,
      headers: [{ name: all, value: new Uint8Array(0) }],
      body: all,
    };
    const back = parseJsonRecord(renderJson(r, { base64: true }), true);
    expect(same(back.body, all)).toBe(true);
    expect(same(back.headers[0]!.name, all)).toBe(true);
    expect(back.headers[0]!.value.length).toBe(0);
  });

  it("json (raw) round-trips any Unicode text", () => {
    fc.assert(
      fc.property(
        unicode,
        fc.array(
          fc.tuple(
            unicode.filter((s) => s !== ""),
            unicode,
          ),
          { maxLength: 3 },
        ),
        (body, hs) => {
          const r: SequencedRecord = {
            seqNum: 0,
            timestamp: 5,
            body: Buffer.from(body),
            headers: hs.map(([n, v]) => ({ name: Buffer.from(n), value: Buffer.from(v) })),
          };
          const back = parseJsonRecord(renderJson(r, { base64: false }), false);
          expect(Buffer.from(back.body).toString()).toBe(body);
          expect(back.headers.map((h) => [Buffer.from(h.name).toString(), Buffer.from(h.value).toString()])).toEqual(
            hs,
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("ignores unknown fields and accepts {}", () => {
    expect(parseJsonRecord('{"seq_num": 5, "x": [1], "body": "hi"}', false).body).toEqual(Buffer.from("hi"));
    const empty = parseJsonRecord("{}", false);
    expect(empty).toEqual({ headers: [], body: new Uint8Array(0) });
  });

  it.each([
    ["not json", /invalid JSON/],
    ["[1]", /expected a JSON object/],
    ['{"timestamp": -1}', /timestamp/],
    ['{"timestamp": 1.5}', /timestamp/],
    ['{"headers": {"a": "b"}}', /array of \[name, value\]/],
    ['{"headers": [["a"]]}', /\[name, value\] pair/],
    ['{"headers": [["a", 1]]}', /\[name, value\] pair/],
    ['{"body": 5}', /"body" must be a string/],
  ])("rejects %s", (line, msg) => {
    expect(() => parseJsonRecord(line, false)).toThrow(msg);
    expect(() => parseJsonRecord(line, false)).toThrow(RecordInputError);
  });

  it("rejects invalid base64 (alphabet, padding, trailing bits)", () => {
    for (const b of ["!!", "aGVsbG8", "aGk", "aGl=", "YR=="]) {
      expect(() => parseJsonRecord(JSON.stringify({ body: b }), true)).toThrow(/invalid base64 in body/);
    }
    expect(() => parseJsonRecord('{"headers": [["???", ""]]}', true)).toThrow(/header 0 name/);
  });

  it("a parsed record is judged by the client's one check (the appender's), which svc append applies", () => {
    const judged = (line: string, base64 = false): number =>
      checkAppendInput({ records: [parseJsonRecord(line, base64)] });
    const refusal = (line: string, base64 = false): SvcError => {
      try {
        judged(line, base64);
      } catch (e) {
        if (e instanceof SvcError) return e;
        throw e;
      }
      throw new Error(`${line} was not refused`);
    };
    expect(judged('{"headers": [["k", "vv"]]}')).toBe(13);
    const body = (n: number) => JSON.stringify({ body: Buffer.alloc(n).toString("base64") });
    expect(judged(body(1024 * 1024 - 8), true)).toBe(1024 * 1024);
    expect(refusal(body(1024 * 1024 - 7), true)).toMatchObject({ code: "bad_input", origin: "client" });
    expect(refusal(body(1024 * 1024 - 7), true).message).toMatch(/limit is 1048576/);
    expect(refusal('{"headers": [["", "x"], ["a", ""]]}').message).toMatch(/empty name/);
    expect(refusal('{"headers": [["", "zap"]]}').message).toMatch(/unknown command "zap"/);
  });

  it("text lines keep bytes, replace or refuse invalid UTF-8", () => {
    const bad = Buffer.from([0x61, 0xff, 0x62]);
    expect(textRecord(bad, "bytes").body).toEqual(bad);
    expect(Buffer.from(textRecord(bad, "replace").body).toString()).toBe("a\ufffdb");
    expect(() => textRecord(bad, "error")).toThrow(/not valid UTF-8/);
  });

  it("parses -H flags and format names", () => {
    expect(parseHeaderFlag("k=v=w")).toEqual({ name: Buffer.from("k"), value: Buffer.from("v=w") });
    expect(parseHeaderFlag("k:=AAE=")).toEqual({ name: Buffer.from("k"), value: Buffer.from([0, 1]) });
    expect(parseHeaderFlag("k=")).toEqual({ name: Buffer.from("k"), value: Buffer.from("") });
    expect(() => parseHeaderFlag("=v")).toThrow(/name must not be empty/);
    expect(() => parseHeaderFlag("novalue")).toThrow(/name=value/);
    expect(parseFormatName("base64")).toBe("json-base64");
    expect(parseFormatName("raw")).toBe("json");
    expect(parseFormatName("json-binsafe")).toBe("json-base64");
    expect(parseFormatName(" JSON ")).toBe("json");
    expect(parseFormatName("")).toBe("text");
    expect(() => parseFormatName("xml")).toThrow(/unknown --format/);
  });
});
