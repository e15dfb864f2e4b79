/**
 * Record and batch rules against protocol.md §8.1, §8.2 (and §12 item 25; Appendix A's
 * metered sizes), as svc append (each line), the client (each append) and lite (each append it
 * receives) all judge them:
 *
 *   metered(record) = 8 + 2 × headers + Σ (len(name) + len(value)) + len(body)
 *   batch: 1..1000 records, ≤ 1,048,576 metered, each record ≤ 1,048,576 and within one read
 *          frame; empty header names only in command records; a fencing token ≤ 36 bytes
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BadRecordError, badInput } from "../../../src/client/bad-record.js";
import { clientFail, type SvcError, serverFail } from "../../../src/errors.js";
import { fenceRecord, trimRecord } from "../../../src/rules/commands.js";
import {
  checkBatch,
  checkRecord,
  MAX_READ_RECORD_BYTES,
  meteredBatchSize,
  meteredSize,
  readSize,
  readSizeBound,
  recordProblem,
} from "../../../src/rules/records.js";
import type { AppendInput, AppendRecord, Header } from "../../../src/types.js";
import { recordFieldSize, sequencedRecordSize } from "../../../src/wire/record-encode.js";
import { svcErrorOf } from "../../helpers/svc-error.js";

const SEED = Number(process.env.FC_SEED ?? 20260224);
const MiB = 1024 * 1024;

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const h = (name: string, value: string): Header => ({ name: utf8(name), value: utf8(value) });
const record = (headers: Header[], body: Uint8Array | string = new Uint8Array(0)): AppendRecord => ({
  headers,
  body: typeof body === "string" ? utf8(body) : body,
});
const bodyOf = (n: number): AppendRecord => record([], new Uint8Array(n));
/** `n` headers `a: b`: 4 metered bytes each, 8 in a read. */
const tinyHeaders = (n: number): AppendRecord => record(Array.from({ length: n }, () => h("a", "b")));

const lite = serverFail("invalid");
const check = (input: AppendInput): number => checkBatch(input, lite);

function refused(fn: () => unknown): SvcError {
  const e = svcErrorOf(fn);
  expect([e.code, e.status, e.origin]).toEqual(["invalid", 422, "server"]);
  return e;
}

describe("metered size (§8.2)", () => {
  it("a record with no headers and an empty body: 8", () => {
    expect(meteredSize(record([]))).toBe(8);
  });
  it('body "hello": 13', () => {
    expect(meteredSize(record([], "hello"))).toBe(13);
  });
  it('fence carrying "t": 8 + 2 + 5 + 1 = 16; trim: 8 + 2 + 4 + 8 = 22', () => {
    expect(meteredSize(fenceRecord("t"))).toBe(16);
    expect(meteredSize(fenceRecord(""))).toBe(15);
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
      fc.property(
        fc.array(
          fc.record({ headers: fc.array(fc.record({ name: bytes, value: bytes }), { maxLength: 5 }), body: bytes }),
          { maxLength: 6 },
        ),
        (records) => {
          const each = records.map(
            (r) =>
              8 +
              2 * r.headers.length +
              r.headers.reduce((s, x) => s + x.name.length + x.value.length, 0) +
              r.body.length,
          );
          expect(records.map((r) => meteredSize(r))).toEqual(each);
          expect(meteredBatchSize(records)).toBe(each.reduce((s, x) => s + x, 0));
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

describe("the size of a record in a read", () => {
  it("is what the encoder writes for it at the largest seq num and timestamp (property)", () => {
    const bytes = fc.uint8Array({ maxLength: 300 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: bytes, value: bytes }), { maxLength: 6 }),
        fc.uint8Array({ maxLength: 20_000 }),
        (headers, body) => {
          const encoded = sequencedRecordSize({
            seqNum: Number.MAX_SAFE_INTEGER,
            timestamp: Number.MAX_SAFE_INTEGER,
            headers,
            body,
          });
          expect(readSize({ headers, body })).toBe(recordFieldSize(encoded));
          expect(readSizeBound({ headers }, meteredSize({ headers, body }))).toBeGreaterThanOrEqual(
            readSize({ headers, body }),
          );
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("a record of exactly 1 MiB metered in tiny headers does not fit one read frame; a few fewer do", () => {
    expect(meteredSize(tinyHeaders(262_142))).toBe(MiB);
    expect(recordProblem(tinyHeaders(262_142))).toMatch(
      /^record would take \d+ bytes when read \(its 262142 headers cost more there than metered\); the limit is 2097087, one session frame$/,
    );
    expect(readSize(tinyHeaders(262_133))).toBeLessThanOrEqual(MAX_READ_RECORD_BYTES);
    expect(recordProblem(tinyHeaders(262_133))).toBeUndefined();
  });
});

describe("one record (svc append judges each line with it)", () => {
  it("returns the metered size, or throws the caller's error with the rule it breaks", () => {
    const fail = (message: string) => new Error(`stdin:3: ${message}`);
    expect(checkRecord(record([h("k", "v")], "x"), fail)).toBe(8 + 2 + 2 + 1);
    expect(() => checkRecord(bodyOf(MiB - 7), fail)).toThrow(
      "stdin:3: record is 1048577 metered bytes; the limit is 1048576 (1 MiB)",
    );
  });

  it("judges the read-frame bound too (svc append used to leave it to the batch)", () => {
    expect(() => checkRecord(tinyHeaders(262_140), clientFail("bad_input"))).toThrow(
      /^record would take 2097142 bytes when read/,
    );
  });

  it("judges the command of a command record (svc append used to send a bad one)", () => {
    expect(recordProblem(fenceRecord("x".repeat(40)))).toBe(
      "record: fence command payload (the new fencing token) must be at most 36 bytes (got 40)",
    );
    expect(recordProblem(record([h("", "nope")], "x"))).toMatch(/^record: unknown command "nope"/);
    expect(recordProblem(fenceRecord("tok"))).toBeUndefined();
  });

  it.each<[string, Header[]]>([
    ["an empty name next to a command header", [h("", "fence"), h("k", "v")]],
    ["an empty name after a named header", [h("k", "v"), h("", "v")]],
    ["two empty names", [h("", "trim"), h("", "trim")]],
  ])("an empty header name outside a command: %s", (_name, headers) => {
    expect(recordProblem(record(headers, "tok"))).toMatch(/has a header with an empty name/);
    refused(() => check({ records: [record([], "ok"), record(headers, "tok")] }));
  });
});

describe("an append (§8.1)", () => {
  it("0 records → refused", () => {
    expect(refused(() => check({ records: [] })).message).toBe("an append must carry at least one record");
  });

  it("1000 records pass, 1001 are refused", () => {
    const r = record([], "x");
    expect(check({ records: Array<AppendRecord>(1000).fill(r) })).toBe(9000);
    expect(refused(() => check({ records: Array<AppendRecord>(1001).fill(r) })).message).toBe(
      "an append carries at most 1000 records (got 1001)",
    );
  });

  it("a batch of exactly 1,048,576 metered bytes passes; one byte more is refused", () => {
    const half = MiB / 2 - 8;
    expect(check({ records: [bodyOf(half), bodyOf(half)] })).toBe(MiB);
    expect(refused(() => check({ records: [bodyOf(half), bodyOf(half + 1)] })).message).toMatch(
      /at most 1048576 metered bytes .*1048577/,
    );
  });

  it("a batch of many records summing exactly 1 MiB passes (the 8-byte overhead counts)", () => {
    const records = Array.from({ length: 1000 }, (_, i) => bodyOf(i < 576 ? 1041 : 1040));
    expect(meteredBatchSize(records)).toBe(MiB);
    expect(check({ records })).toBe(MiB);
    records[0] = bodyOf(1042);
    refused(() => check({ records }));
  });

  it("a single record of exactly 1 MiB passes; over 1 MiB is refused, named by its index", () => {
    expect(check({ records: [bodyOf(MiB - 8)] })).toBe(MiB);
    expect(refused(() => check({ records: [bodyOf(1), bodyOf(MiB - 7)] })).message).toBe(
      "record 1 is 1048577 metered bytes; the limit is 1048576 (1 MiB)",
    );
    refused(() => check({ records: [record([h("k", "x".repeat(MiB))])] }));
  });

  it("a record that would not fit one read frame is refused", () => {
    expect(refused(() => check({ records: [tinyHeaders(262_142)] })).message).toMatch(
      /^record 0 would take \d+ bytes when read/,
    );
  });

  it('§12 item 25: ["k","v"] is fine; ["","x"] alone is an unknown command', () => {
    expect(check({ records: [record([h("k", "v")])] })).toBe(8 + 2 + 2);
    expect(refused(() => check({ records: [record([h("", "x")])] })).message).toMatch(/^record 0: unknown command "x"/);
  });

  it("valid command records pass and count toward the batch", () => {
    expect(check({ records: [fenceRecord("tok"), trimRecord(2), fenceRecord("")] })).toBe(18 + 22 + 15);
  });

  it("a fencing_token condition over 36 bytes → refused (protobuf and session path)", () => {
    const records = [record([], "x")];
    expect(check({ records, fencingToken: "x".repeat(36) })).toBe(9);
    expect(refused(() => check({ records, fencingToken: "x".repeat(37) })).message).toBe(
      "fencing token must be at most 36 UTF-8 bytes (got 37)",
    );
    refused(() => check({ records, fencingToken: "€".repeat(12) + "a" }));
  });

  it("conditions do not count toward the metered size", () => {
    expect(check({ records: [record([], "hello")], matchSeqNum: 0, fencingToken: "tok" })).toBe(13);
  });

  it("the client's error is its own: bad input, from this side", () => {
    const e = svcErrorOf(() => checkBatch({ records: [] }, badInput));
    expect([e.code, e.status, e.origin, e.message]).toEqual([
      "bad_input",
      undefined,
      "client",
      "an append must carry at least one record",
    ]);
  });

  it("the client's refusal names the record at fault: its index, and its problem said of it alone", () => {
    const records = [record([], "ok"), record([h("", "nope")], "x"), bodyOf(MiB)];
    const e = svcErrorOf(() => checkBatch({ records }, badInput));
    expect(e).toBeInstanceOf(BadRecordError);
    const bad = e as BadRecordError;
    expect([bad.code, bad.origin, bad.index]).toEqual(["bad_input", "client", 1]);
    expect(bad.message).toMatch(/^record 1: unknown command "nope"/);
    expect(bad.problem).toBe(recordProblem(records[1]!));
    const big = svcErrorOf(() => checkBatch({ records: [records[0]!, records[2]!] }, badInput));
    expect([(big as BadRecordError).index, (big as BadRecordError).problem]).toEqual([
      1,
      "record is 1048584 metered bytes; the limit is 1048576 (1 MiB)",
    ]);
    // A fault of the batch as a whole names no record.
    expect(svcErrorOf(() => checkBatch({ records: [] }, badInput))).not.toBeInstanceOf(BadRecordError);
    // Lite's error is its own, with the index in its message.
    expect(refused(() => check({ records })).message).toMatch(/^record 1: unknown command "nope"/);
  });
});
