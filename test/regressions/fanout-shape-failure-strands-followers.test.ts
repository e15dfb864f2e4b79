/**
 * Bug (found while unit-testing the fan-out): when a wire shape of a live batch could not be made
 * (its encoder threw or rejected, as a compressor may), the fan-out's round failed unhandled: the
 * batch was dropped for every subscriber, and they stayed subscribed at their old position. They
 * got those durable records only when a later append evicted them as lagged, so on a stream
 * that went quiet a follower waited with heartbeats and never received them. Now a failed shape
 * sends every subscriber to storage, which serves the batch.
 */
import { describe, expect, it } from "vitest";
import { LiveBatch, LiveFanout, type LiveSubscriber } from "../../src/lite/store/live-fanout.js";

function batch(first: number): LiveBatch {
  return new LiveBatch([{ seqNum: first, timestamp: 1, headers: [], body: new Uint8Array(1) }], {
    seqNum: first + 1,
    timestamp: 1,
  });
}

describe("a live batch whose wire shape cannot be made", () => {
  it("sends its subscribers to storage at once instead of leaving them waiting", async () => {
    const f = new LiveFanout(0);
    const evicted: unknown[] = [];
    const offered: number[] = [];
    const subscriber = (make: () => Uint8Array | Promise<Uint8Array>): LiveSubscriber => ({
      position: 0,
      shape: { key: `k${evicted.length}-${Math.random()}`, make },
      offer: (b) => (offered.push(b.firstSeq), true),
      evicted: (why) => void evicted.push(why),
    });
    f.join(
      subscriber(() => {
        throw new Error("compressor failed");
      }),
    );
    f.join(subscriber(() => Promise.reject(new Error("compressor failed"))));
    f.publish(batch(0));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(offered).toEqual([]);
    expect(evicted).toEqual(["lagged", "lagged"]);
    expect(f.size).toBe(0);
  });
});
