/**
 * A catch-up batch as a read gathers it (src/lite/store/catch-up.ts): how many stored batches
 * to read at once (1 to 64, by the last batch's records and size against the room left), and
 * the output batch made of runs of stored bytes (sent as they are, decoded only when asked) or
 * of decoded records, in order.
 */
import { describe, expect, it } from "vitest";
import { decodeBatch, encodeBatch } from "../../../../src/lite/storage/batch-codec.js";
import type { StoredBatch } from "../../../../src/lite/storage/types.js";
import { CatchUpBatch, storedBatchesToRead } from "../../../../src/lite/store/catch-up.js";
import { meteredBatchSize } from "../../../../src/rules/records.js";
import type { SequencedRecord } from "../../../../src/types.js";

/** `count` records of `size` bytes from `first`, decoded. */
function records(first: number, count: number, size = 1): SequencedRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    seqNum: first + i,
    timestamp: 100 + first + i,
    headers: [],
    body: new Uint8Array(size).fill(first + i),
  }));
}

const decoded = (first: number, count: number, size = 1): StoredBatch => ({
  firstSeq: first,
  arrival: 1,
  lastTimestamp: 100 + first + count - 1,
  records: records(first, count, size),
});

/** The same batch as read back from storage: its records as the bytes a read sends. */
const stored = (first: number, count: number, size = 1): StoredBatch =>
  decodeBatch(first, encodeBatch(decoded(first, count, size)));

const seqs = (rs: SequencedRecord[]) => rs.map((r) => r.seqNum);

describe("how many stored batches a catch-up reads at once", () => {
  it("as many as the records left take, at least 1, at most 64", () => {
    const ten = decoded(0, 10); // 10 records of 9 metered bytes
    expect(storedBatchesToRead(ten, 25, 1 << 20)).toBe(3);
    expect(storedBatchesToRead(ten, 1000, 1 << 20)).toBe(64);
    expect(storedBatchesToRead(ten, 0, 1 << 20)).toBe(1);
  });

  it("as many as the bytes left take, by the last batch's size", () => {
    expect(storedBatchesToRead(decoded(0, 10), 1000, 100), "90 bytes each").toBe(2);
    expect(storedBatchesToRead(decoded(0, 1, 2 << 20), 1000, 1 << 20), "a batch bigger than the room").toBe(1);
  });

  it("sizes a stored batch by its encoded records", () => {
    const b = stored(0, 10, 50);
    const size = b.wire!.slice(0, 10).length;
    expect(size, "not its metered size").not.toBe(meteredBatchSize(b.records));
    expect(storedBatchesToRead(b, 1000, 10 * size + 1)).toBe(11);
    expect(storedBatchesToRead(b, 1000, 10 * size)).toBe(10);
  });
});

describe("a catch-up batch", () => {
  it("is nothing before a record was added", () => {
    expect(new CatchUpBatch().finish()).toBeUndefined();
  });

  it("counts records, metered and encoded bytes", () => {
    const c = new CatchUpBatch();
    c.add(10, 14);
    c.add(5, 9);
    expect([c.count, c.bytes, c.encoded]).toEqual([2, 15, 23]);
  });

  it("of runs only, is those bytes as they are, decoded once and only when asked", () => {
    const a = stored(0, 4);
    const b = stored(4, 3);
    const c = new CatchUpBatch();
    const runs = [a.wire!.slice(1, 4), b.wire!.slice(0, 2)];
    for (const r of runs) c.pieces.push(r);
    for (let i = 0; i < 5; i++) c.add(9, 1);
    const out = c.finish()!;
    expect(out.encoded, "the stored bytes themselves").toEqual(runs);
    expect(out.encoded![0]!.buffer, "not copied").toBe(runs[0]!.buffer);
    expect(seqs(out.records)).toEqual([1, 2, 3, 4, 5]);
    expect(out.records.map((r) => r.body[0])).toEqual([1, 2, 3, 4, 5]);
    expect(out.records, "decoded once").toBe(out.records);
  });

  it("with decoded records among the runs, is every record in order", () => {
    const a = stored(0, 3);
    const c = new CatchUpBatch();
    c.pieces.push(a.wire!.slice(0, 2), ...records(2, 1), stored(3, 2).wire!.slice(0, 2));
    for (let i = 0; i < 5; i++) c.add(9, 1);
    const out = c.finish()!;
    expect(out.encoded).toBeUndefined();
    expect(seqs(out.records)).toEqual([0, 1, 2, 3, 4]);
    expect(out.records.map((r) => r.timestamp)).toEqual([100, 101, 102, 103, 104]);
  });
});
