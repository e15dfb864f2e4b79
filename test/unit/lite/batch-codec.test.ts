/**
 * The stored batch format (src/lite/storage/batch-codec.ts): what is encoded decodes to the same
 * records, byte for byte, with seq nums from the key; byte fields are views that stay correct
 * when the value sits inside a larger buffer (lmdb hands out slices); a corrupt value is refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBatch, encodeBatch } from "../../../src/lite/storage/batch-codec.js";
import type { StoredBatch } from "../../../src/lite/storage/storage.js";

const bytes = fc.uint8Array({ maxLength: 64 });
const record = fc.record({
  timestamp: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  headers: fc.array(fc.record({ name: bytes, value: bytes }), { maxLength: 3 }),
  body: fc.uint8Array({ maxLength: 300 }),
});

function plain(b: StoredBatch) {
  return {
    ...b,
    records: b.records.map((r) => ({ ...r, body: [...r.body], headers: r.headers.map((h) => ({ name: [...h.name], value: [...h.value] })) })),
  };
}

describe("stored batch codec", () => {
  it("round-trips any batch, also from a value at an offset inside a larger buffer", () => {
    fc.assert(fc.property(fc.nat({ max: 2 ** 40 }), fc.array(record, { minLength: 1, maxLength: 20 }), fc.nat({ max: 64 }), (firstSeq, recs, pad) => {
      const batch: StoredBatch = {
        firstSeq, arrival: 1_700_000_000_000, lastTimestamp: recs[recs.length - 1]!.timestamp,
        records: recs.map((r, i) => ({ seqNum: firstSeq + i, ...r })),
      };
      const value = encodeBatch(batch);
      const host = Buffer.alloc(pad + value.length + 7, 0xee);
      value.copy(host, pad);
      for (const v of [value, host.subarray(pad, pad + value.length)]) {
        expect(plain(decodeBatch(firstSeq, v))).toEqual(plain(batch));
      }
    }));
  });

  it("refuses a truncated or padded value instead of returning wrong records", () => {
    const batch: StoredBatch = { firstSeq: 5, arrival: 1, lastTimestamp: 2, records: [{ seqNum: 5, timestamp: 2, headers: [], body: new Uint8Array(10).fill(7) }] };
    const value = encodeBatch(batch);
    expect(() => decodeBatch(5, value.subarray(0, value.length - 3))).toThrow(/corrupt/);
    expect(() => decodeBatch(5, Buffer.concat([value, Buffer.of(0)]))).toThrow(/corrupt/);
  });
});
