/**
 * Found by the multi-node ordering suite (trim workflow, the linearizability search failed on
 * SEED=1206121384): a unary read on one node, from 1796, returned 1806..1827 and said the
 * stream ended at 1828; records 1796..1805 existed until a trim through another node, stored
 * at seq 1832, removed them while the read went on. No moment of the stream had both: when its
 * tail was 1828 those records were there, and once they were trimmed the tail was past 1832.
 * The read had asked for the tail when it started (1828), found the gap the trim left, and
 * went on to that old tail.
 *
 * Now a read that finds such a gap asks for the tail again and reads on to it: here it
 * returns the records up to and including the trim's own, never a short read that ends
 * before the trim whose effect it shows.
 */
import { describe, expect, it } from "vitest";
import type { SharedLog, StoredState } from "../../src/lite/storage/seams.js";
import type { StoredBatch } from "../../src/lite/storage/types.js";
import { BatchCache } from "../../src/lite/store/batch-cache.js";
import { initialState } from "../../src/lite/store/live-stream.js";
import { ReadCursor } from "../../src/lite/store/read-engine.js";
import { SharedStream } from "../../src/lite/store/shared-stream.js";
import { resolveStreamConfig } from "../../src/lite/store/stream-config.js";

const meta = { basin: "b", name: "s", id: 1, config: resolveStreamConfig({ retention_policy: { infinite: {} } }, null), createdAt: new Date(0).toISOString(), deletedAt: null, requestKey: null, rev: 0 };

function batch(first: number, count: number): StoredBatch {
  return { firstSeq: first, arrival: 5, lastTimestamp: 5, records: Array.from({ length: count }, (_, i) => ({ seqNum: first + i, timestamp: 5, headers: [], body: new Uint8Array([first + i]) })) };
}

describe("a read on a shared stream that finds the gap of a trim made meanwhile", () => {
  it("reads on to the tail after that trim", async () => {
    // Stored: 0..8 in three batches; this node has not heard of any of it yet.
    let stored: StoredBatch[] = [batch(0, 3), batch(3, 3), batch(6, 3)];
    let state: StoredState = { nextSeq: 9, lastTimestamp: 5, fencingToken: "", trimPoint: 0, lastArrival: 5, live: true };
    let reads = 0;
    const log: SharedLog = {
      append: async () => { throw new Error("no appends here"); },
      states: async () => new Map([[1, state]]),
      readBatches: async (_id, from, max) => {
        if (++reads === 2) {
          // Between this read's first and second look: another node appends a trim to 6 at
          // seq 9, and the sweep removes the batches below it.
          stored = [batch(6, 3), batch(9, 1)];
          state = { ...state, nextSeq: 10, trimPoint: 6 };
        }
        return stored.filter((b) => b.firstSeq + b.records.length > from).slice(0, max);
      },
      findTimestamp: async () => undefined,
      batchHeads: async () => [],
      deleteBatchesBelow: async () => 0,
    };
    const s = new SharedStream(meta, initialState(0), { log, cache: new BatchCache(0), readState: async () => state, onTrim: () => {} });
    const cursor = await ReadCursor.open(s, { start: { seqNum: 0 }, count: 100 }, true);
    try {
      const step = await cursor.next();
      expect(step.kind).toBe("batch");
      const seqs = step.kind === "batch" ? step.batch.records.map((r) => r.seqNum) : [];
      // Not [6, 7, 8]: a short read that ends at 9 though the trim it shows is stored at 9.
      expect(seqs).toEqual([6, 7, 8, 9]);
    } finally {
      cursor.close();
    }
  });
});
