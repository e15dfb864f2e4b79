/**
 * Found by the multi-node ordering suite in CI (trim workflow, SEED=891215883; the replay did
 * not repeat it, the timing is narrow): a unary read on one node, from 347, returned 353..382
 * and then 398..400, a hole of 15 records. While it ran, another append landed through that
 * node with a trim to 404, and the sweep removed the batches below 404 from the database; the
 * node's batch cache still held the batch at 398 it had just appended. At 383 the read found
 * in storage only batches past the tail it knew (398), took that for the end of what it had to
 * read and moved its position to 398 without treating the missing records as the gap of a
 * trim, and then read the cached batch at 398.
 *
 * Now a batch found past the known tail with records missing before it is a gap like any
 * other on a shared stream: what the read had gathered is dropped, the tail and the trim point
 * are asked again, and the read goes on from the batch or the trim point, whichever is later:
 * never a hole, and no record below a trim point it has heard of.
 */
import { describe, expect, it } from "vitest";
import type { SharedLog, StoredState } from "../../src/lite/storage/seams.js";
import type { StoredBatch } from "../../src/lite/storage/types.js";
import { BatchCache } from "../../src/lite/store/batch-cache.js";
import { ReadCursor } from "../../src/lite/store/read-engine.js";
import { SharedStream } from "../../src/lite/store/shared-stream.js";
import { resolveStreamConfig } from "../../src/lite/store/stream-config.js";

const meta = { basin: "b", name: "s", id: 1, config: resolveStreamConfig({ retention_policy: { infinite: {} } }, null), createdAt: new Date(0).toISOString(), deletedAt: null, requestKey: null, rev: 0 };

function batch(first: number, count: number): StoredBatch {
  return { firstSeq: first, arrival: 5, lastTimestamp: 5, records: Array.from({ length: count }, (_, i) => ({ seqNum: first + i, timestamp: 5, headers: [], body: new Uint8Array([first + i]) })) };
}

describe("a read on a shared stream whose next records were trimmed away while a later batch is cached", () => {
  it("never returns a hole: it starts again past the trim", async () => {
    // Stored: 0..8 in three batches; this node knows the tail up to 6 and has the batch at 6 in
    // its cache (it appended it).
    let stored: StoredBatch[] = [batch(0, 3), batch(3, 3), batch(6, 3)];
    let state: StoredState = { nextSeq: 9, lastTimestamp: 5, fencingToken: "", trimPoint: 0, lastArrival: 5, live: true };
    let reads = 0;
    const log: SharedLog = {
      append: async () => { throw new Error("no appends here"); },
      states: async () => new Map([[1, state]]),
      readBatches: async (_id, from, max) => {
        if (++reads === 2) {
          // Between this read's first and second look: an append at 9..11 holding a trim to 9
          // lands, and the sweep removes every batch below 9 from the database.
          stored = [batch(9, 3)];
          state = { ...state, nextSeq: 12, trimPoint: 9 };
        }
        return stored.filter((b) => b.firstSeq + b.records.length > from).slice(0, max);
      },
      findTimestamp: async () => undefined,
      batchHeads: async () => [],
      deleteBatchesBelow: async () => 0,
    };
    const cache = new BatchCache(1 << 20);
    cache.put(1, [batch(6, 3)]);
    const s = new SharedStream(meta, { nextSeq: 6, lastTimestamp: 5, fencingToken: "", trimPoint: 0, lastArrival: 5 }, { log, cache, readState: async () => state, onTrim: () => {} });
    const cursor = await ReadCursor.open(s, { start: { seqNum: 0 }, count: 100 }, true);
    try {
      const step = await cursor.next();
      expect(step.kind).toBe("batch");
      const seqs = step.kind === "batch" ? step.batch.records.map((r) => r.seqNum) : [];
      // Not [0, 1, 2, 6, 7, 8, 9, 10, 11]: a hole at 3..5, and 6..8 below the trim it shows.
      expect(seqs).toEqual([9, 10, 11]);
    } finally {
      cursor.close();
    }
  });
});
