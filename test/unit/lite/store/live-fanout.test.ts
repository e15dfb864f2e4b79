/**
 * The fan-out of a stream's live batches (src/lite/store/live-fanout.ts): who may join, batches
 * delivered later than published and in order, pending batches merged up to one read batch,
 * each wire shape made once per batch, subscribers evicted when they miss records or the stream
 * ends, and rounds that give the event loop back every 256 subscribers.
 */
import { describe, expect, it } from "vitest";
import { serverError } from "../../../../src/errors.js";
import { LiveBatch, LiveFanout, type LiveSubscriber } from "../../../../src/lite/store/live-fanout.js";
import { LIMITS } from "../../../../src/types.js";

/** A batch of `count` records from `first`, bodies of `size` bytes. */
function batch(first: number, count: number, size = 1): LiveBatch {
  const records = Array.from({ length: count }, (_, i) => ({
    seqNum: first + i,
    timestamp: first + i,
    headers: [],
    body: new Uint8Array(size),
  }));
  return new LiveBatch(records, { seqNum: first + count, timestamp: first + count - 1 });
}

interface Sub extends LiveSubscriber {
  position: number;
  got: [number, number][];
  bytes: string[];
  evictions: unknown[];
}

/** A subscriber at `position` reading shape `key` (none: undefined); `take` says whether it keeps a batch. */
function sub(position: number, key?: string, take: (b: LiveBatch) => boolean = () => true): Sub {
  const s: Sub = {
    position,
    shape: key === undefined ? undefined : { key, make: (b) => shapeOf(key, b) },
    got: [],
    bytes: [],
    evictions: [],
    offer(b) {
      if (!take(b)) return false;
      s.got.push([b.firstSeq, b.end]);
      if (key !== undefined) s.bytes.push(new TextDecoder().decode(b.shaped(key)));
      s.position = b.end;
      return true;
    },
    evicted(why) {
      s.evictions.push(why);
    },
  };
  return s;
}

let made: string[] = [];
function shapeOf(key: string, b: LiveBatch): Uint8Array {
  made.push(`${key}@${b.firstSeq}`);
  return new TextEncoder().encode(`${key}:${b.firstSeq}-${b.end}`);
}

async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

describe("the live fan-out", () => {
  it("takes subscribers at or past what was published, not behind it", () => {
    const f = new LiveFanout(10);
    expect(f.join(sub(9))).toBe(false);
    expect(f.join(sub(10))).toBe(true);
    expect(f.join(sub(12))).toBe(true);
    expect(f.size).toBe(2);
  });

  it("delivers after publish returns, in order; a subscriber that joined after a batch is not offered it", async () => {
    const f = new LiveFanout(0);
    const a = sub(0);
    f.join(a);
    f.publish(batch(0, 2));
    expect(a.got, "publish only queues").toEqual([]);
    await turns();
    expect(a.got).toEqual([[0, 2]]);
    const b = sub(2);
    f.join(b);
    f.publish(batch(2, 1));
    const late = sub(3);
    f.join(late); // joined after the batch was published, at its end
    await turns();
    f.publish(batch(3, 4));
    await turns();
    expect(a.got).toEqual([
      [0, 2],
      [2, 3],
      [3, 7],
    ]);
    expect(b.got).toEqual([
      [2, 3],
      [3, 7],
    ]);
    expect(late.got).toEqual([[3, 7]]);
    expect([a, b, late].flatMap((s) => s.evictions)).toEqual([]);
    expect(f.position).toBe(7);
  });

  it("merges batches published before a round runs into one delivery, up to a read batch's records", async () => {
    const f = new LiveFanout(0);
    const a = sub(0);
    f.join(a);
    for (let i = 0; i < 5; i++) f.publish(batch(i * 300, 300));
    await turns();
    expect(a.got, "at most 1000 records per delivery").toEqual([
      [0, 900],
      [900, 1500],
    ]);
    expect(LIMITS.maxBatchRecords).toBe(1000);
  });

  it("merges up to a read batch's metered bytes", async () => {
    const f = new LiveFanout(0);
    const a = sub(0);
    f.join(a);
    // 4 records of 100 KiB (+8 metered bytes each): 2 batches fit in 1 MiB, 3 do not.
    for (let i = 0; i < 4; i++) f.publish(batch(i * 4, 4, 100 << 10));
    await turns();
    expect(a.got).toEqual([
      [0, 8],
      [8, 16],
    ]);
  });

  it("keeps the tail of the last batch merged", async () => {
    const f = new LiveFanout(0);
    const seen: LiveBatch[] = [];
    const s: LiveSubscriber = { position: 0, shape: undefined, offer: (b) => (seen.push(b), true), evicted: () => {} };
    f.join(s);
    f.publish(batch(0, 2, 1));
    f.publish(batch(2, 2, 1));
    await turns();
    expect(seen.map((b) => [b.firstSeq, b.end, b.tail.seqNum, b.records.length])).toEqual([[0, 4, 4, 4]]);
  });

  it("makes each wire shape once per batch, only the shapes its subscribers read", async () => {
    made = [];
    const f = new LiveFanout(0);
    const subs = [sub(0, "sse"), sub(0, "sse"), sub(0, "frame"), sub(0, "frame"), sub(0)];
    for (const s of subs) f.join(s);
    f.publish(batch(0, 3));
    await turns();
    expect(made.sort()).toEqual(["frame@0", "sse@0"]);
    expect(subs.map((s) => s.bytes)).toEqual([["sse:0-3"], ["sse:0-3"], ["frame:0-3"], ["frame:0-3"], []]);
  });

  it("waits for a shape made asynchronously before offering the batch", async () => {
    const f = new LiveFanout(0);
    let finish!: (b: Uint8Array) => void;
    const got: string[] = [];
    const s: LiveSubscriber = {
      position: 0,
      shape: { key: "slow", make: () => new Promise((r) => (finish = r)) },
      offer: (b) => (got.push(new TextDecoder().decode(b.shaped("slow"))), true),
      evicted: () => {},
    };
    f.join(s);
    f.publish(batch(0, 1));
    await turns();
    expect(got).toEqual([]);
    finish(new TextEncoder().encode("made"));
    await turns();
    expect(got).toEqual(["made"]);
  });

  it("drops a subscriber that does not take a batch, without evicting it, and serves the others", async () => {
    const f = new LiveFanout(0);
    const full = sub(0, undefined, (b) => b.firstSeq === 0);
    const other = sub(0);
    f.join(full);
    f.join(other);
    f.publish(batch(0, 1));
    await turns();
    f.publish(batch(1, 1));
    await turns();
    f.publish(batch(2, 1));
    await turns();
    expect(full.got).toEqual([[0, 1]]);
    expect(full.evictions, "it reads storage itself").toEqual([]);
    expect(other.got.length).toBe(3);
    expect(f.size).toBe(1);
  });

  it("evicts as lagged a subscriber that missed records or joined inside a merged batch", async () => {
    const f = new LiveFanout(0);
    const first = sub(0);
    f.join(first);
    f.publish(batch(0, 2));
    const inside = sub(2); // joined between two batches that are merged into one delivery
    f.join(inside);
    f.publish(batch(2, 2));
    await turns();
    expect(first.got).toEqual([[0, 4]]);
    expect(inside.got).toEqual([]);
    expect(inside.evictions).toEqual(["lagged"]);
    expect(f.size).toBe(1);
  });

  it("sends everyone to storage when a batch does not start where the last one ended", async () => {
    const f = new LiveFanout(0);
    const a = sub(0);
    const b = sub(0);
    f.join(a);
    f.join(b);
    f.publish(batch(0, 1));
    f.publish(batch(5, 2)); // records 1..4 were never published here (another node's)
    await turns();
    expect([a.evictions, b.evictions]).toEqual([["lagged"], ["lagged"]]);
    expect(a.got, "nothing pending is delivered past the gap").toEqual([]);
    expect(f.position).toBe(7);
    expect(f.size).toBe(0);
  });

  it("lagAll moves the position on and drops what is pending; closeAll ends everyone with the error", async () => {
    const f = new LiveFanout(0);
    const a = sub(0);
    f.join(a);
    f.publish(batch(0, 1));
    f.lagAll(9);
    await turns();
    expect(a.got).toEqual([]);
    expect(a.evictions).toEqual(["lagged"]);
    expect(f.position).toBe(9);
    f.lagAll(3);
    expect(f.position, "never back").toBe(9);
    const b = sub(9);
    f.join(b);
    f.publish(batch(9, 1));
    const gone = serverError("stream_deletion_pending", "the stream is being deleted");
    f.closeAll(gone);
    await turns();
    expect(b.got).toEqual([]);
    expect(b.evictions).toEqual([gone]);
    expect(f.size).toBe(0);
  });

  it("keeps nothing pending without subscribers, and still moves its position", async () => {
    const f = new LiveFanout(0);
    f.publish(batch(0, 3));
    const a = sub(3);
    expect(f.join(a)).toBe(true);
    f.publish(batch(3, 1));
    await turns();
    expect(a.got).toEqual([[3, 4]]);
  });

  it("serves a round in slices: the event loop runs after every 256 subscribers", async () => {
    const f = new LiveFanout(0);
    let offered = 0;
    let seenByOtherWork: number | undefined;
    const subs = Array.from({ length: 600 }, () => {
      const s: LiveSubscriber = {
        position: 0,
        shape: undefined,
        offer: () => {
          if (offered++ === 0) setImmediate(() => (seenByOtherWork = offered));
          return true;
        },
        evicted: () => {},
      };
      return s;
    });
    for (const s of subs) f.join(s);
    f.publish(batch(0, 1));
    await turns(10);
    expect(offered).toBe(600);
    expect(seenByOtherWork, "offers made before other work ran").toBe(256);
  });

  it("delivers what was published during a round in the next one", async () => {
    const f = new LiveFanout(0);
    const a = sub(0);
    let publishedDuring = false;
    const b: LiveSubscriber = {
      position: 0,
      shape: undefined,
      offer: (x) => {
        if (!publishedDuring) {
          publishedDuring = true;
          f.publish(batch(x.end, 2));
        }
        (b as { position: number }).position = x.end;
        return true;
      },
      evicted: () => {},
    };
    f.join(b);
    f.join(a);
    f.publish(batch(0, 1));
    await turns();
    expect(a.got).toEqual([
      [0, 1],
      [1, 3],
    ]);
  });
});
