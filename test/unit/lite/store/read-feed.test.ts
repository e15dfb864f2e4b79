/**
 * The read pipeline (src/lite/store/read-feed.ts, protocol.md §7) over a local stream on the
 * in-memory log: where a read starts (the 416 rules), the limits, `until`, the removal mark, the
 * move from catching up to following, and the live path: each durable batch offered once to every
 * follower with the same bytes, a follower that cannot take a batch whole (limits, a full
 * connection) sent back to storage, and `wait` (§7.5).
 */
import { describe, expect, it } from "vitest";
import { MemoryBackend } from "../../../../src/lite/storage/memory.js";
import type { LiveBatch } from "../../../../src/lite/store/live-fanout.js";
import { initialState } from "../../../../src/lite/store/live-stream.js";
import { LocalStream } from "../../../../src/lite/store/local-stream.js";
import { type LiveSink, ReadFeed } from "../../../../src/lite/store/read-feed.js";
import { planRead } from "../../../../src/lite/store/read-plan.js";
import { resolveStreamConfig } from "../../../../src/lite/store/stream-config.js";
import { trimRecord } from "../../../../src/rules/commands.js";
import type { ReadEvent, ReadParams } from "../../../../src/types.js";

const enc = new TextEncoder();

/** A stream of 10 records in batches of 3, 3, 4, with client timestamps 100, 110, … 190. */
async function stream(): Promise<LocalStream> {
  const backend = new MemoryBackend();
  backend.log.states.set(1, initialState(0));
  const config = resolveStreamConfig(
    { timestamping: { mode: "client-prefer", uncapped: true }, retention_policy: { infinite: {} } },
    null,
  );
  const s = new LocalStream(
    { basin: "b", name: "s", id: 1, config, createdAt: new Date(0).toISOString(), deletedAt: null, requestKey: null },
    initialState(0),
    backend.log,
  );
  let t = 100;
  for (const n of [3, 3, 4]) await s.append({ records: records(n, () => (t += 10) - 10) });
  return s;
}

function records(n: number, ts?: () => number) {
  return Array.from({ length: n }, () => ({
    headers: [],
    body: enc.encode("x".repeat(10)),
    ...(ts ? { timestamp: ts() } : {}),
  }));
}

const seqs = (ev: ReadEvent | undefined) =>
  ev?.type === "batch" ? ev.records.map((r) => r.seqNum) : (ev?.type ?? "end");

async function read(s: LocalStream, params: ReadParams, unary = true) {
  const feed = await ReadFeed.open(s, planRead(params, unary));
  try {
    return seqs(await feed.next());
  } finally {
    feed.close();
  }
}

/** A sink that keeps what it is given; `room` says whether it takes more. */
function sink(room = () => true): LiveSink & { got: number[][]; made: number } {
  const out = {
    got: [] as number[][],
    made: 0,
    shape: {
      key: "test",
      make: (b: LiveBatch) => {
        out.made++;
        return enc.encode(b.records.map((r) => r.seqNum).join(","));
      },
    },
    deliver(b: LiveBatch) {
      out.got.push(b.records.map((r) => r.seqNum));
      return room();
    },
  };
  return out;
}

/** A feed of `s` that has caught up and waits at the tail. */
async function atTail(s: LocalStream, params: ReadParams = {}): Promise<ReadFeed> {
  const feed = await ReadFeed.open(s, planRead({ start: { seqNum: 10 }, ...params }, false));
  expect(await feed.next()).toMatchObject({ type: "heartbeat", tail: { seqNum: 10 } });
  return feed;
}

const turn = () => new Promise((r) => setTimeout(r, 5));

describe("the read pipeline", () => {
  it("starts at a seq num, a timestamp or a tail offset", async () => {
    const s = await stream();
    expect(await read(s, { start: { seqNum: 4 } })).toEqual([4, 5, 6, 7, 8, 9]);
    expect(await read(s, { start: { timestamp: 135 } })).toEqual([4, 5, 6, 7, 8, 9]);
    expect(await read(s, { start: { tailOffset: 2 } })).toEqual([8, 9]);
  });

  it("answers 416 beyond the tail, or at it for a read that cannot wait; clamp starts at the tail", async () => {
    const s = await stream();
    await expect(read(s, { start: { seqNum: 11 } })).rejects.toMatchObject({ status: 416, tail: { seqNum: 10 } });
    await expect(read(s, { start: { seqNum: 10 } })).rejects.toMatchObject({ status: 416 });
    await expect(read(s, { start: { timestamp: 1000 } })).rejects.toMatchObject({ status: 416 });
    // clamped to the tail: a session with no limits and wait=0 reads to the tail and ends there, no heartbeat
    expect(await read(s, { start: { seqNum: 50 }, clamp: true, wait: 0 }, false)).toBe("end");
    expect(await read(s, { start: { seqNum: 50 }, clamp: true }, false)).toBe("heartbeat");
  });

  it("stops at count, at bytes (never inside a record), and before the first record at or past until", async () => {
    const s = await stream();
    expect(await read(s, { start: { seqNum: 0 }, count: 4 })).toEqual([0, 1, 2, 3]);
    expect(await read(s, { start: { seqNum: 0 }, bytes: 45 })).toEqual([0, 1]); // 18 metered bytes each
    expect(await read(s, { start: { seqNum: 0 }, until: 130 })).toEqual([0, 1, 2]);
  });

  it("serves records below a trim point until the sweep carries it out, then starts at it", async () => {
    const s = await stream();
    await s.append({ records: [trimRecord(6)] });
    expect(await read(s, { start: { seqNum: 0 }, count: 2 })).toEqual([0, 1]);
    s.noteRemoved(6); // the sweep carried it out (its batch 3..5 stays stored, below the mark)
    expect(await read(s, { start: { seqNum: 0 }, count: 2 })).toEqual([6, 7]);
    expect(await read(s, { start: { seqNum: 4 }, count: 2 })).toEqual([6, 7]);
  });

  it("catches up, then follows: a heartbeat at the tail, then live batches as they become durable", async () => {
    const s = await stream();
    const feed = await ReadFeed.open(s, planRead({ start: { seqNum: 8 } }, false));
    expect(seqs(await feed.next())).toEqual([8, 9]);
    await feed.next();
    const live = sink();
    const following = feed.follow(live);
    await s.append({ records: records(1) });
    await s.append({ records: records(2) });
    await turn();
    expect(live.got.flat()).toEqual([10, 11, 12]);
    expect(feed.position).toBe(13);
    feed.close();
    expect(await following).toBe("stopped");
  });

  it("makes each live batch's shape once, however many follow the stream", async () => {
    const s = await stream();
    const sinks = Array.from({ length: 50 }, () => sink());
    const feeds = await Promise.all(sinks.map(() => atTail(s)));
    const ends = feeds.map((f, i) => f.follow(sinks[i]!));
    await s.append({ records: records(2) });
    // Delivery runs after the ack: wait for it (a busy machine takes more than a turn).
    for (let i = 0; i < 400 && !sinks.every((k) => k.got.length > 0); i++) await turn();
    expect(sinks.map((k) => k.got.flat().join())).toEqual(sinks.map(() => "10,11"));
    expect(
      sinks.reduce((n, k) => n + k.made, 0),
      "shapes made for 50 followers of one batch",
    ).toBe(1);
    for (const f of feeds) f.close();
    await Promise.all(ends);
  });

  it("sends a follower that cannot take a live batch whole back to storage, which serves what its limits allow", async () => {
    const s = await stream();
    const feed = await atTail(s, { count: 3, wait: 5 });
    const live = sink();
    const following = feed.follow(live);
    await s.append({ records: records(5) });
    expect(await following).toBe("storage");
    expect(live.got).toEqual([]);
    expect(seqs(await feed.next())).toEqual([10, 11, 12]);
    expect(await feed.next()).toBeUndefined(); // its count is met
    feed.close();
  });

  it("ends following with `full` when the connection has no room, and the read goes on from storage", async () => {
    const s = await stream();
    const feed = await atTail(s);
    const live = sink(() => false);
    const following = feed.follow(live);
    await s.append({ records: records(1) });
    expect(await following).toBe("full");
    await s.append({ records: records(1) });
    expect(live.got).toEqual([[10]]);
    expect(seqs(await feed.next())).toEqual([11]);
    feed.close();
  });

  it("ends when `wait` passes with no live batch, and then with `done` once a count is met", async () => {
    const s = await stream();
    const idle = await atTail(s, { wait: 0.05 } as ReadParams);
    expect(await idle.follow(sink())).toBe("idle");
    idle.close();
    const counted = await atTail(s, { count: 2, wait: 5 });
    const live = sink();
    const following = counted.follow(live);
    await s.append({ records: records(2) });
    expect(await following).toBe("done");
    expect(live.got).toEqual([[10, 11]]);
    expect(await counted.next()).toBeUndefined();
    counted.close();
  });

  it("fails at once, even while following, when its signal aborts; a deleted stream ends its followers", async () => {
    const s = await stream();
    const revoked = new AbortController();
    const feed = await ReadFeed.open(s, planRead({ start: { seqNum: 10 } }, false), { signal: revoked.signal });
    await feed.next();
    const following = feed.follow(sink());
    revoked.abort(new Error("revoked"));
    await expect(following).rejects.toThrow("revoked");
    await expect(feed.next()).rejects.toThrow("revoked");
    feed.close();
    const other = await atTail(s);
    const ended = other.follow(sink());
    s.markDeleting();
    await expect(ended).rejects.toMatchObject({ code: "stream_deletion_pending" });
    other.close();
  });
});
