/**
 * Protobuf codec against protocol.md §5.1–5.2 (and the protobuf cases of
 * docs/design/reliability.md, "Bad input").
 *
 *   StreamPosition  1 seq_num u64 · 2 timestamp u64                    (implicit presence)
 *   Header          1 name bytes · 2 value bytes                        (implicit)
 *   AppendRecord    1 timestamp optional u64 · 2 headers repeated · 3 body bytes
 *   AppendInput     1 records repeated · 2 match_seq_num optional u64 · 3 fencing_token optional string
 *   AppendAck       1 start · 2 end · 3 tail                            (messages, always set)
 *   SequencedRecord 1 seq_num · 2 timestamp · 3 headers repeated · 4 body
 *   ReadBatch       1 records repeated · 2 tail optional message
 *
 * Vectors: test/fixtures/wire/proto.json, hand-written. The `ref*` functions below are a minimal
 * codec written from the protobuf wire rules; they check the fixtures themselves and serve as an
 * oracle for the properties (our encoder read by the reference decoder; non-canonical reference
 * encodings read by our decoder). u64 values must be safe integers or an `out_of_range` error.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SvcError } from "../../../src/errors.js";
import type { AppendAck, AppendInput, ReadBatch, StreamPosition } from "../../../src/types.js";
import {
  decodeAppendAck,
  decodeAppendInput,
  decodeReadBatch,
  encodeAppendAck,
  encodeAppendInput,
  encodeReadBatch,
} from "../../../src/wire/proto.js";
import { svcErrorOf } from "../../helpers/svc-error.js";

const SEED = Number(process.env.FC_SEED ?? 20260224);
const MAX_SAFE = 2n ** 53n - 1n;

function hex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s.replace(/\s+/g, ""), "hex"));
}
function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

// ---------------------------------------------------------------- normalised values (as in the fixtures)

type HeaderV = [string, string];
interface PosV {
  seqNum: number;
  timestamp: number;
}
interface AppendRecordV {
  timestamp?: number;
  headers: HeaderV[];
  body: string;
}
interface AppendInputV {
  records: AppendRecordV[];
  matchSeqNum?: number;
  fencingToken?: string;
}
interface AppendAckV {
  start: PosV;
  end: PosV;
  tail: PosV;
}
interface SequencedRecordV {
  seqNum: number;
  timestamp: number;
  headers: HeaderV[];
  body: string;
}
interface ReadBatchV {
  records: SequencedRecordV[];
  tail?: PosV;
}

const normHeaders = (hs: { name: Uint8Array; value: Uint8Array }[]): HeaderV[] =>
  hs.map((h) => [toHex(h.name), toHex(h.value)]);
const normPos = (p: StreamPosition): PosV => ({ seqNum: p.seqNum, timestamp: p.timestamp });

function normInput(x: AppendInput): AppendInputV {
  const out: AppendInputV = {
    records: x.records.map((r) => {
      const rec: AppendRecordV = { headers: normHeaders(r.headers), body: toHex(r.body) };
      if (r.timestamp !== undefined) rec.timestamp = r.timestamp;
      return rec;
    }),
  };
  if (x.matchSeqNum !== undefined) out.matchSeqNum = x.matchSeqNum;
  if (x.fencingToken !== undefined) out.fencingToken = x.fencingToken;
  return out;
}
const normAck = (x: AppendAck): AppendAckV => ({ start: normPos(x.start), end: normPos(x.end), tail: normPos(x.tail) });
function normBatch(x: ReadBatch): ReadBatchV {
  const out: ReadBatchV = {
    records: x.records.map((r) => ({
      seqNum: r.seqNum,
      timestamp: r.timestamp,
      headers: normHeaders(r.headers),
      body: toHex(r.body),
    })),
  };
  if (x.tail !== undefined) out.tail = normPos(x.tail);
  return out;
}

const denormHeaders = (hs: HeaderV[]): { name: Uint8Array; value: Uint8Array }[] =>
  hs.map(([n, v]) => ({ name: hex(n), value: hex(v) }));
function denormInput(v: AppendInputV): AppendInput {
  const out: AppendInput = {
    records: v.records.map((r) => {
      const rec: AppendInput["records"][number] = { headers: denormHeaders(r.headers), body: hex(r.body) };
      if (r.timestamp !== undefined) rec.timestamp = r.timestamp;
      return rec;
    }),
  };
  if (v.matchSeqNum !== undefined) out.matchSeqNum = v.matchSeqNum;
  if (v.fencingToken !== undefined) out.fencingToken = v.fencingToken;
  return out;
}
function denormBatch(v: ReadBatchV): ReadBatch {
  const out: ReadBatch = {
    records: v.records.map((r) => ({
      seqNum: r.seqNum,
      timestamp: r.timestamp,
      headers: denormHeaders(r.headers),
      body: hex(r.body),
    })),
  };
  if (v.tail !== undefined) out.tail = { ...v.tail };
  return out;
}

// ---------------------------------------------------------------- reference codec (from the wire rules)

class RefError extends Error {
  constructor(readonly kind: "bad_proto" | "out_of_range") {
    super(kind);
  }
}

function readVarint(b: Uint8Array, at: number): [bigint, number] {
  let v = 0n;
  for (let i = 0; i < 10; i++) {
    if (at >= b.length) throw new RefError("bad_proto");
    const byte = b[at++]!;
    v |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) return [v & 0xffff_ffff_ffff_ffffn, at];
  }
  throw new RefError("bad_proto");
}

interface RawField {
  no: number;
  wt: number;
  varint?: bigint;
  bytes?: Uint8Array;
}

/** Splits a message into fields; fixed32/64 and groups are skipped (only unknown fields use them). */
function rawFields(b: Uint8Array): RawField[] {
  const out: RawField[] = [];
  let at = 0;
  const skip = (wt: number, no: number): void => {
    if (wt === 0) {
      at = readVarint(b, at)[1];
      return;
    }
    if (wt === 1 || wt === 5) {
      at += wt === 1 ? 8 : 4;
      if (at > b.length) throw new RefError("bad_proto");
      return;
    }
    if (wt === 2) {
      const [n, next] = readVarint(b, at);
      if (n > BigInt(b.length - next)) throw new RefError("bad_proto");
      at = next + Number(n);
      return;
    }
    if (wt === 3) {
      for (;;) {
        const [key, next] = readVarint(b, at);
        at = next;
        const [inner, innerWt] = [Number(key >> 3n), Number(key & 7n)];
        if (innerWt === 4) {
          if (inner !== no) throw new RefError("bad_proto");
          return;
        }
        skip(innerWt, inner);
      }
    }
    throw new RefError("bad_proto");
  };
  while (at < b.length) {
    const [key, next] = readVarint(b, at);
    at = next;
    const no = Number(key >> 3n);
    const wt = Number(key & 7n);
    if (no === 0) throw new RefError("bad_proto");
    if (wt === 0) {
      const [v, after] = readVarint(b, at);
      out.push({ no, wt, varint: v });
      at = after;
    } else if (wt === 2) {
      const [n, after] = readVarint(b, at);
      if (n > BigInt(b.length - after)) throw new RefError("bad_proto");
      out.push({ no, wt, bytes: b.subarray(after, after + Number(n)) });
      at = after + Number(n);
    } else {
      skip(wt, no);
    }
  }
  return out;
}

const u64 = (v: bigint): number => {
  if (v > MAX_SAFE) throw new RefError("out_of_range");
  return Number(v);
};
const lastVarint = (fs: RawField[], no: number): bigint | undefined =>
  fs.filter((f) => f.no === no && f.wt === 0).at(-1)?.varint;
const allBytes = (fs: RawField[], no: number): Uint8Array[] =>
  fs.filter((f) => f.no === no && f.wt === 2).map((f) => f.bytes!);
const lastBytes = (fs: RawField[], no: number): Uint8Array => allBytes(fs, no).at(-1) ?? new Uint8Array(0);
/** Protobuf merges repeated occurrences of a singular message: like decoding their concatenation. */
const merged = (fs: RawField[], no: number): Uint8Array | undefined => {
  const parts = allBytes(fs, no);
  return parts.length === 0 ? undefined : new Uint8Array(Buffer.concat(parts));
};

function refPos(b: Uint8Array | undefined): PosV {
  const fs = rawFields(b ?? new Uint8Array(0));
  return { seqNum: u64(lastVarint(fs, 1) ?? 0n), timestamp: u64(lastVarint(fs, 2) ?? 0n) };
}
function refHeader(b: Uint8Array): HeaderV {
  const fs = rawFields(b);
  return [toHex(lastBytes(fs, 1)), toHex(lastBytes(fs, 2))];
}
function refAppendInput(b: Uint8Array): AppendInputV {
  const fs = rawFields(b);
  const out: AppendInputV = {
    records: allBytes(fs, 1).map((rb) => {
      const r = rawFields(rb);
      const rec: AppendRecordV = { headers: allBytes(r, 2).map(refHeader), body: toHex(lastBytes(r, 3)) };
      const ts = lastVarint(r, 1);
      if (ts !== undefined) rec.timestamp = u64(ts);
      return rec;
    }),
  };
  const match = lastVarint(fs, 2);
  if (match !== undefined) out.matchSeqNum = u64(match);
  const token = allBytes(fs, 3).at(-1);
  if (token !== undefined) {
    try {
      out.fencingToken = new TextDecoder("utf-8", { fatal: true }).decode(token);
    } catch {
      throw new RefError("bad_proto");
    }
  }
  return out;
}
function refAppendAck(b: Uint8Array): AppendAckV {
  const fs = rawFields(b);
  return { start: refPos(merged(fs, 1)), end: refPos(merged(fs, 2)), tail: refPos(merged(fs, 3)) };
}
function refReadBatch(b: Uint8Array): ReadBatchV {
  const fs = rawFields(b);
  const out: ReadBatchV = {
    records: allBytes(fs, 1).map((rb) => {
      const r = rawFields(rb);
      return {
        seqNum: u64(lastVarint(r, 1) ?? 0n),
        timestamp: u64(lastVarint(r, 2) ?? 0n),
        headers: allBytes(r, 3).map(refHeader),
        body: toHex(lastBytes(r, 4)),
      };
    }),
  };
  const tail = merged(fs, 2);
  if (tail !== undefined) out.tail = refPos(tail);
  return out;
}

// Reference encoder with deliberate non-canonical choices (all valid per §5.2).
interface Style {
  explicitEmpty: boolean;
  unknown: boolean;
  reverse: boolean;
}
function varint(n: bigint | number): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? low | 0x80 : low);
  } while (v > 0n);
  return out;
}
type Chunk = [no: number, bytes: number[]];
const vField = (no: number, v: number): Chunk => [no, [...varint((no << 3) | 0), ...varint(v)]];
const lField = (no: number, b: Uint8Array | number[]): Chunk => [
  no,
  [...varint((no << 3) | 2), ...varint(b.length), ...b],
];
function message(chunks: Chunk[], s: Style): number[] {
  const ordered = s.reverse ? [...chunks].sort((a, b) => b[0] - a[0]) : chunks; // stable: repeated fields keep their order
  const unknown: Chunk[] = s.unknown
    ? [
        [99, [...varint((99 << 3) | 0), 7]],
        [98, [...varint((98 << 3) | 2), 2, 0xca, 0xfe]],
      ]
    : [];
  return [...unknown.slice(0, 1), ...ordered, ...unknown.slice(1)].flatMap((c) => c[1]);
}
const implicitBytes = (no: number, hexValue: string, s: Style): Chunk[] =>
  hexValue === "" && !s.explicitEmpty ? [] : [lField(no, hex(hexValue))];
const implicitU64 = (no: number, v: number, s: Style): Chunk[] => (v === 0 && !s.explicitEmpty ? [] : [vField(no, v)]);
const refEncHeader = ([n, v]: HeaderV, s: Style): number[] =>
  message([...implicitBytes(1, n, s), ...implicitBytes(2, v, s)], s);
const refEncPos = (p: PosV, s: Style): number[] =>
  message([...implicitU64(1, p.seqNum, s), ...implicitU64(2, p.timestamp, s)], s);

function refEncInput(x: AppendInputV, s: Style): Uint8Array {
  const records = x.records.map((r) =>
    lField(
      1,
      message(
        [
          ...(r.timestamp === undefined ? [] : [vField(1, r.timestamp)]),
          ...r.headers.map((h) => lField(2, refEncHeader(h, s))),
          ...implicitBytes(3, r.body, s),
        ],
        s,
      ),
    ),
  );
  return new Uint8Array(
    message(
      [
        ...records,
        ...(x.matchSeqNum === undefined ? [] : [vField(2, x.matchSeqNum)]),
        ...(x.fencingToken === undefined ? [] : [lField(3, [...Buffer.from(x.fencingToken, "utf8")])]),
      ],
      s,
    ),
  );
}
const refEncAck = (x: AppendAckV, s: Style): Uint8Array =>
  new Uint8Array(
    message([lField(1, refEncPos(x.start, s)), lField(2, refEncPos(x.end, s)), lField(3, refEncPos(x.tail, s))], s),
  );
function refEncBatch(x: ReadBatchV, s: Style): Uint8Array {
  const records = x.records.map((r) =>
    lField(
      1,
      message(
        [
          ...implicitU64(1, r.seqNum, s),
          ...implicitU64(2, r.timestamp, s),
          ...r.headers.map((h) => lField(3, refEncHeader(h, s))),
          ...implicitBytes(4, r.body, s),
        ],
        s,
      ),
    ),
  );
  return new Uint8Array(message([...records, ...(x.tail === undefined ? [] : [lField(2, refEncPos(x.tail, s))])], s));
}

// ---------------------------------------------------------------- fixtures

interface Vector<V> {
  name: string;
  hex: string;
  canonical?: boolean;
  value?: V;
  error?: "bad_proto" | "out_of_range";
}
interface Fixtures {
  AppendInput: Vector<AppendInputV>[];
  AppendInputWrongWireType: { name: string; hex: string }[];
  AppendAck: Vector<AppendAckV>[];
  ReadBatch: Vector<ReadBatchV>[];
}
const fixtures = JSON.parse(
  readFileSync(new URL("../../fixtures/wire/proto.json", import.meta.url), "utf8"),
) as Fixtures;

function refErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof RefError) return e.kind;
    throw e;
  }
  return "no error";
}

interface Codec<T, V> {
  encode: (x: T) => Uint8Array;
  decode: (b: Uint8Array) => T;
  norm: (x: T) => V;
  denorm: (v: V) => T;
  ref: (b: Uint8Array) => V;
}
const codecs = {
  AppendInput: {
    encode: encodeAppendInput,
    decode: decodeAppendInput,
    norm: normInput,
    denorm: denormInput,
    ref: refAppendInput,
  } satisfies Codec<AppendInput, AppendInputV>,
  AppendAck: {
    encode: encodeAppendAck,
    decode: decodeAppendAck,
    norm: normAck,
    denorm: (v: AppendAckV): AppendAck => structuredClone(v),
    ref: refAppendAck,
  } satisfies Codec<AppendAck, AppendAckV>,
  ReadBatch: {
    encode: encodeReadBatch,
    decode: decodeReadBatch,
    norm: normBatch,
    denorm: denormBatch,
    ref: refReadBatch,
  } satisfies Codec<ReadBatch, ReadBatchV>,
};

function fixtureSuite<T, V>(kind: string, vectors: Vector<V>[], codec: Codec<T, V>): void {
  describe(`${kind} vectors`, () => {
    const good = vectors.filter((v) => v.error === undefined);
    const bad = vectors.filter((v) => v.error !== undefined);

    it.each(good)("fixture agrees with the reference decoder: $name", (v) => {
      expect(codec.ref(hex(v.hex))).toEqual(v.value);
    });
    it.each(bad)("fixture is refused by the reference decoder: $name", (v) => {
      expect(refErrorOf(() => codec.ref(hex(v.hex)))).toBe(v.error);
    });

    it.each(good)("decodes $name", (v) => {
      expect(codec.norm(codec.decode(hex(v.hex)))).toEqual(v.value);
    });

    it.each(good.filter((v) => v.canonical))("encodes byte for byte: $name", (v) => {
      expect(toHex(codec.encode(codec.denorm(v.value!)))).toBe(v.hex.replace(/\s+/g, ""));
    });

    it.each(good)("re-encoding the decoded value keeps it: $name", (v) => {
      const again = codec.encode(codec.decode(hex(v.hex)));
      expect(codec.ref(again)).toEqual(v.value);
    });

    it.each(bad)("refuses $name with $error", (v) => {
      const e = svcErrorOf(() => codec.decode(hex(v.hex)));
      expect(e.code).toBe(v.error);
      expect(e.retryable).toBe(false);
      if (v.error === "bad_proto") expect(e.status).toBe(400);
    });
  });
}

fixtureSuite("AppendInput", fixtures.AppendInput, codecs.AppendInput);
fixtureSuite("AppendAck", fixtures.AppendAck, codecs.AppendAck);
fixtureSuite("ReadBatch", fixtures.ReadBatch, codecs.ReadBatch);

describe("specific §5.2 rules", () => {
  it("the two fence encodings decode to the same record; our encoder writes one of them", () => {
    const implicit = decodeAppendInput(hex("0a 0e 12 07 12 05 66 65 6e 63 65 1a 03 74 6f 6b"));
    const explicit = decodeAppendInput(hex("0a 10 12 09 0a 00 12 05 66 65 6e 63 65 1a 03 74 6f 6b"));
    expect(normInput(explicit)).toEqual(normInput(implicit));
    expect(normInput(implicit)).toEqual({ records: [{ headers: [["", "66656e6365"]], body: "746f6b" }] });
    expect(["0a0e1207120566656e63651a03746f6b", "0a1012090a00120566656e63651a03746f6b"]).toContain(
      toHex(encodeAppendInput(implicit)),
    );
  });

  it("match_seq_num = 0 keeps its presence; absent stays absent", () => {
    const zero = decodeAppendInput(hex("0a 04 1a 02 68 69 10 00"));
    expect(zero.matchSeqNum).toBe(0);
    expect(toHex(encodeAppendInput(zero))).toBe("0a041a02686910" + "00");
    const absent = decodeAppendInput(hex("0a 04 1a 02 68 69"));
    expect(absent.matchSeqNum).toBeUndefined();
    expect(toHex(encodeAppendInput(absent))).toBe("0a041a026869");
    expect(toHex(encodeAppendInput({ records: [], matchSeqNum: 0 }))).toBe("1000");
  });

  it("an optional timestamp set to 0 is encoded as 08 00; an absent one not at all", () => {
    const body = hex("68 69");
    expect(toHex(encodeAppendInput({ records: [{ timestamp: 0, headers: [], body }] }))).toBe("0a0608001a026869");
    expect(toHex(encodeAppendInput({ records: [{ headers: [], body }] }))).toBe("0a041a026869");
    expect(decodeAppendInput(hex("0a 04 1a 02 68 69")).records[0]!.timestamp).toBeUndefined();
  });

  it("an empty fencing_token is present, not absent", () => {
    expect(decodeAppendInput(hex("1a 00")).fencingToken).toBe("");
    expect(toHex(encodeAppendInput({ records: [], fencingToken: "" }))).toBe("1a00");
  });

  it.each(fixtures.AppendInputWrongWireType)("$name", (v) => {
    // A known field number with the wrong wire type is not that field: a decoder refuses the
    // message (bad_proto) or skips the field as unknown; it never invents a value from it.
    let decoded: AppendInput | undefined;
    try {
      decoded = decodeAppendInput(hex(v.hex));
    } catch (e) {
      expect(e).toBeInstanceOf(SvcError);
      expect((e as SvcError).code).toBe("bad_proto");
      return;
    }
    expect(normInput(decoded)).toEqual({ records: [] });
  });

  it("2^53 - 1 round-trips exactly in every u64 field", () => {
    const max = Number(MAX_SAFE);
    const input: AppendInput = {
      records: [{ timestamp: max, headers: [], body: new Uint8Array(0) }],
      matchSeqNum: max,
    };
    expect(normInput(decodeAppendInput(encodeAppendInput(input)))).toEqual(normInput(input));
    const p = { seqNum: max, timestamp: max };
    expect(normAck(decodeAppendAck(encodeAppendAck({ start: p, end: p, tail: p })))).toEqual({
      start: p,
      end: p,
      tail: p,
    });
    const batch: ReadBatch = {
      records: [{ seqNum: max, timestamp: max, headers: [], body: new Uint8Array(0) }],
      tail: p,
    };
    expect(normBatch(decodeReadBatch(encodeReadBatch(batch)))).toEqual(normBatch(batch));
  });

  it.each([2 ** 53, 2 ** 53 + 2, 2 ** 64, -1, 1.5, Number.NaN])(
    "the encoder refuses %s as a u64 (out_of_range), never rounds or wraps it",
    (bad) => {
      const e1 = svcErrorOf(() => encodeAppendInput({ records: [], matchSeqNum: bad }));
      expect(e1.code).toBe("out_of_range");
      const e2 = svcErrorOf(() =>
        encodeAppendInput({ records: [{ timestamp: bad, headers: [], body: new Uint8Array(0) }] }),
      );
      expect(e2.code).toBe("out_of_range");
      const p = { seqNum: bad, timestamp: 0 };
      expect(svcErrorOf(() => encodeAppendAck({ start: p, end: p, tail: p })).code).toBe("out_of_range");
      expect(svcErrorOf(() => encodeReadBatch({ records: [], tail: { seqNum: 0, timestamp: bad } })).code).toBe(
        "out_of_range",
      );
    },
  );
});

// ---------------------------------------------------------------- properties

const bytesHex = fc.uint8Array({ maxLength: 24 }).map(toHex);
const u64Arb = fc.oneof(fc.constantFrom(0, 1, 127, 128, 2 ** 32, Number(MAX_SAFE)), fc.maxSafeNat());
const headerArb = fc.tuple(bytesHex, bytesHex);
const posArb = fc.record({ seqNum: u64Arb, timestamp: u64Arb });
const appendRecordArb = fc
  .record({
    timestamp: fc.option(u64Arb, { nil: undefined }),
    headers: fc.array(headerArb, { maxLength: 3 }),
    body: bytesHex,
  })
  .map((r): AppendRecordV => (r.timestamp === undefined ? { headers: r.headers, body: r.body } : (r as AppendRecordV)));
const appendInputArb = fc
  .record({
    records: fc.array(appendRecordArb, { maxLength: 4 }),
    matchSeqNum: fc.option(u64Arb, { nil: undefined }),
    fencingToken: fc.option(fc.string({ unit: "binary", maxLength: 12 }), { nil: undefined }),
  })
  .map((x): AppendInputV => {
    const out: AppendInputV = { records: x.records };
    if (x.matchSeqNum !== undefined) out.matchSeqNum = x.matchSeqNum;
    if (x.fencingToken !== undefined) out.fencingToken = x.fencingToken;
    return out;
  });
const appendAckArb = fc.record({ start: posArb, end: posArb, tail: posArb });
const sequencedArb = fc.record({
  seqNum: u64Arb,
  timestamp: u64Arb,
  headers: fc.array(headerArb, { maxLength: 3 }),
  body: bytesHex,
});
const readBatchArb = fc
  .record({ records: fc.array(sequencedArb, { maxLength: 4 }), tail: fc.option(posArb, { nil: undefined }) })
  .map((x): ReadBatchV => (x.tail === undefined ? { records: x.records } : (x as ReadBatchV)));
const styleArb = fc.record({ explicitEmpty: fc.boolean(), unknown: fc.boolean(), reverse: fc.boolean() });

describe("properties (fast-check)", () => {
  const runs = { seed: SEED, numRuns: 1000 };

  it.each([
    ["AppendInput", appendInputArb, codecs.AppendInput, refEncInput],
    ["AppendAck", appendAckArb, codecs.AppendAck, refEncAck],
    ["ReadBatch", readBatchArb, codecs.ReadBatch, refEncBatch],
  ] as const)(
    "%s: decode(encode(x)) = x, the reference decoder reads our bytes, we read any valid encoding",
    (_kind, arb, codec, refEnc) => {
      const c = codec as unknown as Codec<unknown, unknown>;
      const enc = refEnc as (x: unknown, s: Style) => Uint8Array;
      fc.assert(
        fc.property(arb as fc.Arbitrary<unknown>, styleArb, (value, style) => {
          const bytes = c.encode(c.denorm(value));
          expect(c.norm(c.decode(bytes))).toEqual(value);
          expect(c.ref(bytes)).toEqual(value);
          expect(c.norm(c.decode(enc(value, style)))).toEqual(value);
        }),
        runs,
      );
    },
  );

  it.each([
    ["AppendInput", decodeAppendInput],
    ["AppendAck", decodeAppendAck],
    ["ReadBatch", decodeReadBatch],
  ] as const)("%s: random bytes decode or raise SvcError bad_proto / out_of_range, nothing else", (_kind, decode) => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          decode(bytes);
        } catch (e) {
          if (!(e instanceof SvcError) || !["bad_proto", "out_of_range"].includes(e.code)) throw e;
        }
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("u64 varints above 2^53 - 1 are refused, never rounded", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MAX_SAFE + 1n, max: 2n ** 64n - 1n }), (v) => {
        const bytes = new Uint8Array([0x10, ...varint(v)]);
        expect(svcErrorOf(() => decodeAppendInput(bytes)).code).toBe("out_of_range");
      }),
      runs,
    );
  });
});
