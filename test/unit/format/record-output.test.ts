import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lossyUtf8 } from "../../../src/bytes.js";
import { parseFormatName } from "../../../src/format/format-name.js";
import { ackStatusLine, ackToJson, commandAckLine } from "../../../src/format/record-ack.js";
import {
  describeCommand,
  fenceCommandRecord,
  parseCommandRecord,
  trimCommandRecord,
} from "../../../src/format/record-command.js";
import { grepFilter, parseFilter } from "../../../src/format/record-filter.js";
import { compileInputTemplate } from "../../../src/format/record-input-template.js";
import { renderJson, renderTextBody } from "../../../src/format/record-output.js";
import { compileTemplate } from "../../../src/format/record-template.js";
import { isCommandRecord } from "../../../src/rules/commands.js";
import type { SequencedRecord } from "../../../src/types.js";

const rec = (
  body: string | Uint8Array,
  headers: [string, string][] = [],
  seqNum = 3,
  timestamp = 1771390606217,
): SequencedRecord => ({
  seqNum,
  timestamp,
  body: typeof body === "string" ? Buffer.from(body) : body,
  headers: headers.map(([n, v]) => ({ name: Buffer.from(n), value: Buffer.from(v) })),
});

describe("format > record-output", () => {
  it("renders JSON with a fixed field order, always with headers and body", () => {
    expect(renderJson(rec("hello", [["k", "v"]]), { base64: false })).toBe(
      '{"seq_num":3,"timestamp":1771390606217,"headers":[["k","v"]],"body":"hello"}',
    );
    expect(renderJson(rec(""), { base64: false })).toBe(
      '{"seq_num":3,"timestamp":1771390606217,"headers":[],"body":""}',
    );
    expect(renderJson(rec(""), { base64: false, omitEmpty: true })).toBe('{"seq_num":3,"timestamp":1771390606217}');
    expect(renderJson(rec("hi"), { base64: true, isoTime: true })).toBe(
      '{"seq_num":3,"timestamp":1771390606217,"time":"2026-02-18T04:56:46.217Z","headers":[],"body":"aGk="}',
    );
    expect(renderJson(rec("hi", [["a", "b"]]), { base64: false, drop: "body" })).toBe(
      '{"seq_num":3,"timestamp":1771390606217,"headers":[["a","b"]]}',
    );
    expect(renderJson(rec("hi", [["a", "b"]]), { base64: false, drop: "all" })).toBe(
      '{"seq_num":3,"timestamp":1771390606217}',
    );
  });

  it("handles invalid UTF-8 in JSON: replace, base64 or error", () => {
    const bad = rec(Buffer.from([0x68, 0xff]));
    expect(JSON.parse(renderJson(bad, { base64: false })).body).toBe("h\ufffd");
    expect(JSON.parse(renderJson(bad, { base64: false, invalidUtf8: "base64" }))).toMatchObject({
      encoding: "base64",
      body: "aP8=",
    });
    expect(() => renderJson(bad, { base64: false, invalidUtf8: "error" })).toThrow(/not valid UTF-8/);
  });

  it("renders text bodies as their own bytes, or (--invalid-utf8 replace) like the server's lossy raw format", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (b) => {
        expect(Buffer.from(renderTextBody(b)).equals(Buffer.from(b))).toBe(true);
        expect(Buffer.from(renderTextBody(b, "replace")).toString("utf8")).toBe(lossyUtf8(b));
      }),
      { numRuns: 2000 },
    );
  });

  it("parses output format names", () => {
    expect(parseFormatName("ndjson")).toBe("json");
    expect(parseFormatName("base64")).toBe("json-base64");
    expect(parseFormatName("binary")).toBe("binary");
    expect(() => parseFormatName("bytes")).toThrow(/unknown --format .*text, json, json-base64 or binary/);
  });
});

describe("format > record-template", () => {
  it("fills placeholders and escapes", () => {
    const t = compileTemplate(
      "{seq_num}\\t{timestamp:iso}\\t{header:content-type}\\t{body}|{body:base64}|{body:hex}|{headers}|{size}|{{x}}",
    );
    expect(t(rec("hi", [["content-type", "text/plain"]])).toString()).toBe(
      '3\t2026-02-18T04:56:46.217Z\ttext/plain\thi|aGk=|6869|[["content-type","text/plain"]]|34|{x}',
    );
    expect(compileTemplate("{header:missing}.{timestamp:ms}")(rec("x")).toString()).toBe(".1771390606217");
  });

  it("rejects unknown placeholders and stray braces", () => {
    expect(() => compileTemplate("{nope}")).toThrow(/unknown placeholder \{nope\}/);
    expect(() => compileTemplate("{body")).toThrow(/unclosed/);
    expect(() => compileTemplate("a}")).toThrow(/unmatched/);
  });

  it("parses input templates", () => {
    const p = compileInputTemplate("%T %h{type} %v");
    const r = p("1700000000000 click hello world");
    expect(r.timestamp).toBe(1700000000000);
    expect(Buffer.from(r.headers[0]!.name).toString()).toBe("type");
    expect(Buffer.from(r.headers[0]!.value).toString()).toBe("click");
    expect(Buffer.from(r.body).toString()).toBe("hello world");
    expect(() => p("no timestamp here")).toThrow(/does not match/);
    expect(() => compileInputTemplate("%T")).toThrow(/no %v/);
    expect(() => compileInputTemplate("%x %v")).toThrow(/unknown %x/);
  });
});

describe("format > record-command", () => {
  it("builds and recognises fence and trim records", () => {
    const f = fenceCommandRecord("writer-2");
    expect(isCommandRecord(f)).toBe(true);
    expect(parseCommandRecord(f)).toEqual({ op: "fence", token: "writer-2" });
    const t = trimCommandRecord(3);
    expect(Buffer.from(t.body).toString("base64")).toBe("AAAAAAAAAAM=");
    expect(describeCommand(parseCommandRecord(t)!)).toBe("trim to 3");
    expect(describeCommand(parseCommandRecord(f)!)).toBe('new fencing token "writer-2"');
    expect(parseCommandRecord(rec("x", [["k", "v"]]))).toBeUndefined();
    expect(describeCommand(parseCommandRecord(rec("x", [["", "zap"]]))!)).toBe("unknown command");
    expect(() => fenceCommandRecord("x".repeat(37))).toThrow(/at most 36 UTF-8 bytes/);
    expect(() => fenceCommandRecord("é".repeat(19))).toThrow(/\(got 38\)/);
    expect(parseCommandRecord(rec("x".repeat(37), [["", "fence"]]))).toEqual({ op: "unknown", name: "fence" });
    expect(fenceCommandRecord("").body.length).toBe(0);
  });

  it("labels ack positions", () => {
    const ack = {
      start: { seqNum: 0, timestamp: 5 },
      end: { seqNum: 3, timestamp: 6 },
      tail: { seqNum: 3, timestamp: 6 },
    };
    expect(ackStatusLine(ack, "ms")).toBe("appended 0..2 (3 records) tail 3 @ 6");
    expect(ackToJson(ack)).toEqual({
      start: { seq_num: 0, timestamp: 5 },
      end: { seq_num: 3, timestamp: 6 },
      tail: { seq_num: 3, timestamp: 6 },
      records: 3,
    });
    const cmd = {
      start: { seqNum: 7, timestamp: 9 },
      end: { seqNum: 8, timestamp: 9 },
      tail: { seqNum: 8, timestamp: 9 },
    };
    expect(commandAckLine('fence set to "writer-2"', cmd, "ms")).toBe('fence set to "writer-2" (record 7 @ 9) tail 8');
  });
});

describe("format > record-filter", () => {
  it("filters by header and body", () => {
    const r = rec("error: disk full", [["level", "error"]]);
    expect(parseFilter("header:level=error")(r)).toBe(true);
    expect(parseFilter("header:level=info")(r)).toBe(false);
    expect(parseFilter("header:level")(r)).toBe(true);
    expect(parseFilter("!header:level=error")(r)).toBe(false);
    expect(grepFilter("disk\\s+full")(r)).toBe(true);
    expect(() => parseFilter("level=error")).toThrow(/header:NAME=VALUE/);
    expect(() => grepFilter("(")).toThrow(/--grep/);
  });
});
