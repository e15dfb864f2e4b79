/**
 * The read printer's fast path (text or binary, no template or filter): a batch is joined into
 * one buffer and, for text, checked for UTF-8 once. It must print exactly what the general
 * per-record path prints, for any bodies (valid or not), delimiters and command records; a
 * filter that keeps everything forces the general path, so the two are compared directly.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PrinterOptions, RecordPrinter } from "../../../src/cli/read/record-printer.js";
import type { SequencedRecord } from "../../../src/types.js";

const FENCE = new TextEncoder().encode("fence");

function options(
  format: "text" | "binary",
  delimiter: Uint8Array,
  invalidUtf8: PrinterOptions["invalidUtf8"],
  commands: PrinterOptions["commands"],
): PrinterOptions {
  return {
    format,
    commands,
    json: {},
    delimiter: Buffer.from(delimiter),
    invalidUtf8,
    timeFormat: "iso",
  } as PrinterOptions;
}

function printed(p: RecordPrinter, records: SequencedRecord[]): unknown {
  try {
    return p.render(records).pieces.map((x) => ("out" in x ? { out: Buffer.from(x.out).toString("hex") } : x));
  } catch (e) {
    return { error: (e as Error).message };
  }
}

// Bodies drawn from bytes that make valid and broken UTF-8 likely: ASCII, lead and continuation
// bytes, and the invalid ones.
const byte = fc.constantFrom(
  0x61,
  0x0a,
  0xc3,
  0xa9,
  0xe2,
  0x82,
  0xac,
  0xf0,
  0x9f,
  0x98,
  0x80,
  0xff,
  0xc0,
  0xed,
  0xa0,
  0x00,
);
const body = fc
  .uint8Array({ maxLength: 12 })
  .chain((raw) => fc.array(byte, { minLength: raw.length, maxLength: raw.length }).map((b) => Uint8Array.from(b)));
const record = fc.record({ body, command: fc.boolean() });

describe("RecordPrinter", () => {
  it("prints through the fast path exactly what the per-record path prints", () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 8 }),
        fc.constantFrom("text", "binary"),
        fc.constantFrom(
          Uint8Array.of(0x0a),
          Uint8Array.of(),
          Uint8Array.of(0x2c, 0x20),
          Uint8Array.of(0xe2, 0x82, 0xac),
          Uint8Array.of(0xc3),
          Uint8Array.of(0xa9),
        ),
        fc.constantFrom(undefined, "replace", "error", "base64"),
        fc.constantFrom("show", "skip", "stderr"),
        (recs, format, delimiter, invalidUtf8, commands) => {
          const records: SequencedRecord[] = recs.map((r, i) => ({
            seqNum: i,
            timestamp: 1000 + i,
            body: r.body,
            headers: r.command ? [{ name: new Uint8Array(0), value: FENCE }] : [],
          }));
          const o = options(
            format as "text" | "binary",
            delimiter,
            invalidUtf8 as PrinterOptions["invalidUtf8"],
            commands as PrinterOptions["commands"],
          );
          const fast = new RecordPrinter(o);
          const general = new RecordPrinter({ ...o, filter: () => true });
          expect(printed(fast, records)).toEqual(printed(general, records));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("joins a plain batch into one piece, delimiter after every record", () => {
    const p = new RecordPrinter(options("text", Uint8Array.of(0x0a), "replace", "show"));
    const records = ["a", "é", ""].map((s, i) => ({
      seqNum: i,
      timestamp: i,
      headers: [],
      body: new TextEncoder().encode(s),
    }));
    const r = p.render(records);
    expect(r.pieces).toHaveLength(1);
    expect(Buffer.from((r.pieces[0] as { out: Uint8Array }).out).toString()).toBe("a\né\n\n");
    expect(r.printed).toBe(3);
  });
});
