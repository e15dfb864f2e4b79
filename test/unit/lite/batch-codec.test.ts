/**
 * The stored batch format (src/lite/storage/batch-codec.ts): what is encoded decodes to the same
 * records, byte for byte, with seq nums from the key; byte fields are views that stay correct
 * when the value sits inside a larger buffer (lmdb hands out slices); the records' wire bytes
 * (what a catch-up read sends without decoding) are exactly the ReadBatch encoding of those
 * records, for any run of them; values written before version 2 still decode; a corrupt value
 * is refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BATCH_HEAD_BYTES,
  BATCH_INDEX_ENTRY_BYTES,
  decodeBatch,
  encodeBatch,
  meteredOfValue,
} from "../../../src/lite/storage/batch-codec.js";
import type { StoredBatch } from "../../../src/lite/storage/types.js";
import { meteredSize } from "../../../src/rules/records.js";
import type { SequencedRecord } from "../../../src/types.js";
import { decodeReadBatch, encodeReadBatch } from "../../../src/wire/proto.js";

const bytes = fc.uint8Array({ maxLength: 64 });
const record = fc.record({
  timestamp: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  headers: fc.array(fc.record({ name: bytes, value: bytes }), { maxLength: 3 }),
  body: fc.uint8Array({ maxLength: 300 }),
});
const batchArb = fc.tuple(fc.nat({ max: 2 ** 40 }), fc.array(record, { minLength: 1, maxLength: 20 })).map(
  ([firstSeq, recs]): StoredBatch => ({
    firstSeq,
    arrival: 1_700_000_000_000,
    lastTimestamp: recs[recs.length - 1]!.timestamp,
    records: recs.map((r, i) => ({ seqNum: firstSeq + i, ...r })),
  }),
);

function plainRecords(records: SequencedRecord[]) {
  return records.map((r) => ({
    seqNum: r.seqNum,
    timestamp: r.timestamp,
    body: [...r.body],
    headers: r.headers.map((h) => ({ name: [...h.name], value: [...h.value] })),
  }));
}

function plain(b: StoredBatch) {
  return { firstSeq: b.firstSeq, arrival: b.arrival, lastTimestamp: b.lastTimestamp, records: plainRecords(b.records) };
}

/** Version 1, as older data dirs hold it (the reference layout, by hand). */
function encodeV1(batch: StoredBatch): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(21);
  head[0] = 1;
  head.writeDoubleBE(batch.arrival, 1);
  head.writeDoubleBE(batch.lastTimestamp, 9);
  head.writeUInt32BE(batch.records.length, 17);
  parts.push(head);
  const field = (b: Uint8Array): void => {
    const n = Buffer.alloc(4);
    n.writeUInt32BE(b.length, 0);
    parts.push(n, Buffer.from(b));
  };
  for (const r of batch.records) {
    const h = Buffer.alloc(12);
    h.writeDoubleBE(r.timestamp, 0);
    h.writeUInt32BE(r.headers.length, 8);
    parts.push(h);
    for (const x of r.headers) {
      field(x.name);
      field(x.value);
    }
    field(r.body);
  }
  return Buffer.concat(parts);
}

describe("stored batch codec", () => {
  it("round-trips any batch, also from a value at an offset inside a larger buffer", () => {
    fc.assert(
      fc.property(batchArb, fc.nat({ max: 64 }), (batch, pad) => {
        const value = encodeBatch(batch);
        const host = Buffer.alloc(pad + value.length + 7, 0xee);
        value.copy(host, pad);
        for (const v of [value, host.subarray(pad, pad + value.length)]) {
          expect(plain(decodeBatch(batch.firstSeq, v))).toEqual(plain(batch));
        }
      }),
    );
  });

  it("offers any run of records as exactly the ReadBatch bytes of those records, with their timestamps and metered sizes", () => {
    fc.assert(
      fc.property(batchArb, fc.nat(), fc.nat(), fc.nat({ max: 64 }), (batch, a, b, pad) => {
        const value = encodeBatch(batch);
        const host = Buffer.alloc(pad + value.length, 0xee);
        value.copy(host, pad);
        const stored = decodeBatch(batch.firstSeq, host.subarray(pad));
        const wire = stored.wire!;
        const n = batch.records.length;
        expect(wire.count).toBe(n);
        const from = a % (n + 1);
        const to = from + (b % (n - from + 1));
        const run = batch.records.slice(from, to);
        expect(Buffer.from(wire.slice(from, to)).equals(Buffer.from(encodeReadBatch({ records: run })))).toBe(true);
        expect(plainRecords(decodeReadBatch(wire.slice(from, to)).records)).toEqual(plainRecords(run));
        for (let i = 0; i < n; i++) {
          expect(wire.timestamp(i)).toBe(batch.records[i]!.timestamp);
          expect(wire.metered(i)).toBe(meteredSize(batch.records[i]!));
        }
      }),
    );
  });

  it("still decodes values written in version 1", () => {
    fc.assert(
      fc.property(batchArb, (batch) => {
        const stored = decodeBatch(batch.firstSeq, encodeV1(batch));
        expect(stored.wire).toBeUndefined();
        expect(plain(stored)).toEqual(plain(batch));
      }),
    );
  });

  it("tells a value's metered size from its index alone (version 2) or its records (version 1)", () => {
    fc.assert(
      fc.property(batchArb, (batch) => {
        const metered = batch.records.reduce((n, r) => n + meteredSize(r), 0);
        const v2 = encodeBatch(batch);
        expect(meteredOfValue(v2)).toBe(metered);
        const indexEnd = BATCH_HEAD_BYTES + BATCH_INDEX_ENTRY_BYTES * batch.records.length;
        expect(meteredOfValue(v2.subarray(0, indexEnd)), "from the header and index only").toBe(metered);
        expect(meteredOfValue(encodeV1(batch))).toBe(metered);
      }),
    );
  });

  it("a batch whose records are read as stored and one re-encoded from them send the same bytes", () => {
    const batch: StoredBatch = {
      firstSeq: 0,
      arrival: 1,
      lastTimestamp: 9,
      records: [
        { seqNum: 0, timestamp: 0, headers: [], body: new Uint8Array(0) },
        {
          seqNum: 1,
          timestamp: 9,
          headers: [{ name: Buffer.from("k"), value: new Uint8Array(0) }],
          body: Buffer.from("x"),
        },
      ],
    };
    const stored = decodeBatch(0, encodeBatch(batch));
    const viaWire = encodeReadBatch({ records: [], encoded: [stored.wire!.slice(0, 2)] });
    expect(Buffer.from(viaWire).equals(Buffer.from(encodeReadBatch({ records: stored.records })))).toBe(true);
  });

  it("refuses a truncated or padded value, or one whose records disagree with its key, instead of returning wrong records", () => {
    const batch: StoredBatch = {
      firstSeq: 5,
      arrival: 1,
      lastTimestamp: 2,
      records: [{ seqNum: 5, timestamp: 2, headers: [], body: new Uint8Array(10).fill(7) }],
    };
    for (const value of [encodeBatch(batch), encodeV1(batch)]) {
      expect(() => decodeBatch(5, value.subarray(0, value.length - 3)).records).toThrow(/corrupt/);
      expect(() => decodeBatch(5, Buffer.concat([value, Buffer.of(0)])).records).toThrow(/corrupt/);
    }
    expect(() => decodeBatch(6, encodeBatch(batch)).records).toThrow(/corrupt \(record 0 says seq 5\)/);
    expect(() => decodeBatch(5, Buffer.concat([Buffer.of(3), encodeBatch(batch).subarray(1)]))).toThrow(
      /unknown stored batch version 3/,
    );
  });
});
