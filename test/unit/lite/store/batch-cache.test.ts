/**
 * The batch cache of a node on shared storage (src/lite/store/batch-cache.ts): runs of cached
 * batches from the one holding a position, bounded by bytes with the least recently used out,
 * and batches below a trim or removal point forgotten.
 */
import { describe, expect, it } from "vitest";
import type { StoredBatch } from "../../../../src/lite/storage/types.js";
import { BatchCache } from "../../../../src/lite/store/batch-cache.js";

/** `count` records of `size` bytes from `first`. */
function batch(first: number, count: number, size = 10): StoredBatch {
  return {
    firstSeq: first,
    arrival: 1,
    lastTimestamp: 1,
    records: Array.from({ length: count }, (_, i) => ({
      seqNum: first + i,
      timestamp: 1,
      headers: [],
      body: new Uint8Array(size),
    })),
  };
}

const firsts = (bs: StoredBatch[]) => bs.map((b) => b.firstSeq);

describe("the batch cache", () => {
  it("serves consecutive cached batches from the one holding a position, stopping at a gap", () => {
    const c = new BatchCache(1 << 20);
    c.put(1, [batch(0, 3), batch(3, 2), batch(10, 5)]);
    expect(firsts(c.get(1, 0, 10))).toEqual([0, 3]);
    expect(firsts(c.get(1, 4, 10))).toEqual([3]);
    expect(firsts(c.get(1, 5, 10)), "no batch holds 5").toEqual([]);
    expect(firsts(c.get(1, 12, 10))).toEqual([10]);
    expect(firsts(c.get(1, 0, 1)), "at most as many as asked").toEqual([0]);
    expect(c.get(2, 0, 10), "another stream").toEqual([]);
  });

  it("keeps within its bytes, the least recently used out first", () => {
    const c = new BatchCache(3 * (64 + 100 * 32 + 100 * 10));
    c.put(1, [batch(0, 100), batch(100, 100), batch(200, 100)]);
    c.get(1, 0, 1); // the batch at 0 is now the most recently used
    c.put(1, [batch(300, 100)]);
    expect(firsts(c.get(1, 0, 1))).toEqual([0]);
    expect(firsts(c.get(1, 100, 1)), "the least recently used went").toEqual([]);
    expect(firsts(c.get(1, 300, 1))).toEqual([300]);
  });

  it("forgets the batches wholly below a trim or removal point, and a dropped stream", () => {
    const c = new BatchCache(1 << 20);
    c.put(1, [batch(0, 3), batch(3, 3), batch(6, 3)]);
    c.put(2, [batch(0, 3)]);
    c.dropBelow(1, 4); // the batch at 3 still holds records at and above 4
    expect(firsts(c.get(1, 0, 10))).toEqual([]);
    expect(firsts(c.get(1, 3, 10))).toEqual([3, 6]);
    c.drop(1);
    expect(c.get(1, 6, 10)).toEqual([]);
    expect(firsts(c.get(2, 0, 10)), "other streams keep theirs").toEqual([0]);
  });
});
