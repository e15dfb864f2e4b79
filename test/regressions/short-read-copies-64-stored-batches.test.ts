/**
 * Bug: a short unary read that began inside a stored batch (`?seq_num=31&count=10` on a stream
 * of 10-record batches) read the rest of that batch, then asked storage for as many batches as
 * an output batch could hold (1000 records: 64 batches, each value a copy) to take the one
 * record still missing. Reads of 10 records ran at a third of check-tail's rate on lmdb. The
 * read-ahead is now bounded by what the read itself may still take (its count and bytes).
 */
import { describe, expect, it } from "vitest";
import { MemoryBackend } from "../../src/lite/storage/memory.js";
import { initialState } from "../../src/lite/store/live-stream.js";
import { LocalStream } from "../../src/lite/store/local-stream.js";
import { ReadFeed } from "../../src/lite/store/read-feed.js";
import { planRead } from "../../src/lite/store/read-plan.js";
import { resolveStreamConfig } from "../../src/lite/store/stream-config.js";

const enc = new TextEncoder();

describe("a short read inside a stored batch", () => {
  it("reads from storage only the batches its count can still use", async () => {
    const backend = new MemoryBackend();
    backend.log.states.set(1, initialState(0));
    const config = resolveStreamConfig({ retention_policy: { infinite: {} } }, null);
    const meta = {
      basin: "b",
      name: "s",
      id: 1,
      config,
      createdAt: new Date(0).toISOString(),
      deletedAt: null,
      requestKey: null,
    };
    const s = new LocalStream(meta, initialState(0), backend.log);
    for (let i = 0; i < 100; i++)
      await s.append({
        records: Array.from({ length: 10 }, () => ({ headers: [], body: enc.encode("x".repeat(100)) })),
      });

    const asked: number[] = [];
    const readBatches = backend.log.readBatches.bind(backend.log);
    backend.log.readBatches = (id, from, max) => {
      const got = readBatches(id, from, max);
      asked.push(got.length);
      return got;
    };

    const feed = await ReadFeed.open(s, planRead({ start: { seqNum: 31 }, count: 10 }, true));
    const ev = await feed.next();
    feed.close();
    expect(ev?.type === "batch" && ev.records.map((r) => r.seqNum)).toEqual([31, 32, 33, 34, 35, 36, 37, 38, 39, 40]);
    // 31..39 from the batch at 30, then 40 from the next: two batches, not 1 + 64
    expect(asked.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3);
  });
});
