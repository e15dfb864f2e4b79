/**
 * Found by the multi-node ordering suite: a node on PostgreSQL stopped answering anything for
 * seconds (a check-tail timed out at 10 s, /health with it). What it knew of a stream's tail
 * went BACKWARDS: a read of the stored state (after another node's notification) told it the
 * tail was 10, and then the answer of its own earlier group (which had landed at 0..1) set it
 * back to 1. A read session following at 10 then found itself "caught up" (10 confirmed) but
 * could not follow (the stream said its tail was 1), went back to catching up, and round again,
 * each turn a resolved promise: the microtask queue never emptied and the event loop starved.
 *
 * Now what a node knows of a tail only moves forward, and a read that cannot follow asks for
 * the tail again before it catches up.
 */
import { describe, expect, it } from "vitest";
import type { GroupResult, SharedLog, StoredState } from "../../src/lite/storage/seams.js";
import { BatchCache } from "../../src/lite/store/batch-cache.js";
import { initialState } from "../../src/lite/store/live-stream.js";
import { ReadFeed } from "../../src/lite/store/read-feed.js";
import { planRead } from "../../src/lite/store/read-plan.js";
import { SharedStream } from "../../src/lite/store/shared-stream.js";
import { resolveStreamConfig } from "../../src/lite/store/stream-config.js";

const meta = {
  basin: "b",
  name: "s",
  id: 1,
  config: resolveStreamConfig({}, null),
  createdAt: new Date(0).toISOString(),
  deletedAt: null,
  requestKey: null,
  rev: 0,
};
const at = (nextSeq: number): StoredState => ({
  nextSeq,
  lastTimestamp: 5,
  fencingToken: "",
  trimPoint: 0,
  removedBelow: 0,
  lastArrival: 5,
  live: true,
});

describe("a shared stream's known tail", () => {
  it("never goes back when its own group's answer comes after a read of a later tail", async () => {
    let answer!: (r: GroupResult) => void;
    let stored = at(0);
    const log: SharedLog = {
      append: () =>
        new Promise((r) => {
          answer = r;
        }),
      states: async () => new Map([[1, stored]]),
      recordWentBack: async () => {},
      readBatches: async () => [],
      findTimestamp: async () => undefined,
      batchHeads: async () => [],
      deleteBatchesBelow: async () => ({ batches: 0, metered: 0 }),
    };
    const s = new SharedStream(meta, initialState(0), {
      log,
      cache: new BatchCache(1 << 20),
      readState: async () => stored,
      onTrim: () => {},
      clock: { now: () => Date.now(), unsure: () => undefined, offsetMs: () => 0, uncertaintyMs: () => 0 },
    });
    const ack = s.append({ records: [{ headers: [], body: new Uint8Array([1]) }] });
    await new Promise((r) => setImmediate(r)); // the group is out
    // Other nodes appended 9 after it; this node hears of it first.
    stored = at(10);
    s.observe(stored);
    const feed = await ReadFeed.open(s, planRead({ start: { seqNum: 10 } }, false));
    answer({ outcomes: [{ ok: true, firstSeq: 0, timestampFloor: 0 }], state: at(1) });
    expect((await ack).start.seqNum).toBe(0);
    expect(s.known.nextSeq, "the tail this node knows").toBe(10);
    // The reader at 10 follows the tail (and does not spin between catching up and following).
    const ev = await feed.next();
    expect(ev?.type).toBe("heartbeat");
    feed.close();
  });
});
