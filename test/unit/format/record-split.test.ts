import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDelimiter, RecordSplitter, type Segment } from "../../../src/format/record-split.js";

function splitAll(input: Buffer, cuts: number[], delimiter?: Buffer, max?: number): string[] {
  const s = new RecordSplitter({ ...(delimiter ? { delimiter } : {}), ...(max ? { maxSegment: max } : {}) });
  const out: Segment[] = [];
  let from = 0;
  for (const c of [...cuts.filter((c) => c > 0 && c < input.length)].sort((a, b) => a - b)) {
    out.push(...s.push(input.subarray(from, c)));
    from = c;
  }
  out.push(...s.push(input.subarray(from)));
  const last = s.end();
  if (last) out.push(last);
  return out.map((b) => (Buffer.isBuffer(b) ? b.toString("latin1") : `<${b.oversize} bytes>`));
}

describe("format > record-split", () => {
  it("splits lines however the input is chunked", () => {
    const seg = fc.string({ unit: fc.constantFrom("a", "b", "\r", "x", "\t"), maxLength: 8 });
    fc.assert(
      fc.property(fc.array(seg, { maxLength: 12 }), fc.boolean(), fc.array(fc.nat(120)), (segs, trailing, cuts) => {
        const text = segs.join("\n") + (trailing && segs.length > 0 ? "\n" : "");
        const pieces = text.split("\n");
        if (pieces[pieces.length - 1] === "") pieces.pop(); // a final delimiter ends the last line
        const expected = pieces.map((l) => l.replace(/\r$/, ""));
        expect(splitAll(Buffer.from(text, "latin1"), cuts)).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it("splits at multi-byte delimiters straddling chunks", () => {
    const delim = Buffer.from("<|>");
    const seg = fc
      .string({ unit: fc.constantFrom("<", "|", ">", "a", "\n"), maxLength: 6 })
      .filter((s) => !s.includes("<|>") && !s.endsWith("<|") && !s.endsWith("<"));
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(60)), (segs, cuts) => {
        const text = segs.join("<|>") + "<|>";
        expect(splitAll(Buffer.from(text), cuts, delim)).toEqual(segs);
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps \\r with other delimiters, drops a final empty segment, keeps empty lines", () => {
    expect(splitAll(Buffer.from("a\r\0b\0"), [], Buffer.from([0]))).toEqual(["a\r", "b"]);
    expect(splitAll(Buffer.from("\n\nx"), [])).toEqual(["", "", "x"]);
    expect(splitAll(Buffer.from(""), [])).toEqual([]);
  });

  it("fails early on a line longer than any record", () => {
    const s = new RecordSplitter({ maxSegment: 10 });
    expect(s.push(Buffer.from("short\n"))).toHaveLength(1);
    expect(() => s.push(Buffer.alloc(20, 0x61))).toThrow(/longer than 10 bytes/);
  });

  it("parses delimiter escapes", () => {
    expect(parseDelimiter("\\n")).toEqual(Buffer.from("\n"));
    expect(parseDelimiter("\\r\\n")).toEqual(Buffer.from("\r\n"));
    expect(parseDelimiter("\\0")).toEqual(Buffer.from([0]));
    expect(parseDelimiter("\\x1e")).toEqual(Buffer.from([0x1e]));
    expect(parseDelimiter("||")).toEqual(Buffer.from("||"));
    expect(parseDelimiter("\\q")).toEqual(Buffer.from("\\q"));
  });
});
