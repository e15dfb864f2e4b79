/**
 * Found by an adversarial trial of lite nodes on PostgreSQL: the svc client ended a resumed
 * follow read silently, exit 0, when the server answered the resumed read with 416. A 416 at
 * a position this read had already reached means the stream's tail is now below records the
 * reader received (a stream deleted and created again, or a server answering from a stale
 * tail): that is no end of the stream, it is a failure, and the reader must hear of it. Only
 * a bounded read resuming exactly at the tail ends quietly, as before.
 */
import { describe, expect, it } from "vitest";
import { readSession } from "../../src/client/read-session.js";
import type { ReadEvent, SequencedRecord } from "../../src/types.js";
import { FakeExchange, pos } from "../helpers/fake-exchange.js";

const enc = new TextEncoder();
const recs = (from: number, n: number): SequencedRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    seqNum: from + i,
    timestamp: 1000,
    headers: [],
    body: enc.encode(`r${from + i}`),
  }));

function opener(...exchanges: FakeExchange[]) {
  return async () => {
    const next = exchanges.shift();
    if (!next) throw new Error("no more exchanges scripted");
    return next.opened();
  };
}

async function drain(it: AsyncIterable<ReadEvent>): Promise<number[]> {
  const out: number[] = [];
  for await (const e of it) if (e.type === "batch") out.push(...e.records.map((r) => r.seqNum));
  return out;
}

describe("a resumed read answered 416", () => {
  it("fails a follow read whose resume point is past the tail now", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange(416, JSON.stringify({ tail: { seq_num: 1, timestamp: 5 } }));
    const read = drain(readSession(opener(first, second), { start: { seqNum: 0 } }));
    first.batch({ records: recs(0, 3), tail: pos(3) });
    first.cut();
    await expect(read).rejects.toThrow(/tail is now 1, below record 2 this read already received/);
  });

  it("fails a bounded read whose resume point is past the tail now", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange(416, JSON.stringify({ tail: { seq_num: 2, timestamp: 5 } }));
    const read = drain(readSession(opener(first, second), { start: { seqNum: 0 }, limits: { count: 100 } }));
    first.batch({ records: recs(0, 3) });
    first.cut();
    await expect(read).rejects.toMatchObject({ status: 416 });
  });

  it("still ends a bounded read resuming exactly at the tail quietly", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange(416, JSON.stringify({ tail: { seq_num: 3, timestamp: 5 } }));
    const read = drain(readSession(opener(first, second), { start: { seqNum: 0 }, limits: { count: 100 } }));
    first.batch({ records: recs(0, 3) });
    first.cut();
    expect(await read).toEqual([0, 1, 2]);
  });
});
