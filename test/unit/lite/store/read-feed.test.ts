/**
 * The read engine (src/lite/store/read-engine.ts, protocol.md §7) over a local stream on the
 * in-memory log: where a read starts (the 416 rules), the limits, `until`, the trim point,
 * and the move from catching up to following live batches.
 */
import { describe, expect, it } from "vitest";
import { MemoryBackend } from "../../../../src/lite/storage/memory.js";
import { initialState } from "../../../../src/lite/store/live-stream.js";
import { LocalStream } from "../../../../src/lite/store/local-stream.js";
import { ReadCursor, type ReadStep } from "../../../../src/lite/store/read-engine.js";
import type { ReadParams } from "../../../../src/lite/store/read-start.js";
import { resolveStreamConfig } from "../../../../src/lite/store/stream-config.js";
import { trimRecord } from "../../../../src/rules/commands.js";

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
  for (const n of [3, 3, 4])
    await s.append({
      records: Array.from({ length: n }, () => ({
        headers: [],
        body: enc.encode("x".repeat(10)),
        timestamp: (t += 10) - 10,
      })),
    });
  return s;
}

const seqs = (step: ReadStep) => (step.kind === "batch" ? step.batch.records.map((r) => r.seqNum) : step.kind);

async function read(s: LocalStream, params: ReadParams, unary = true) {
  const c = await ReadCursor.open(s, params, unary);
  try {
    return seqs(await c.next());
  } finally {
    c.close();
  }
}

describe("the read engine", () => {
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
    // clamped to the tail, a session follows there (with wait=0 its feed then ends: read-feed.ts)
    expect(await read(s, { start: { seqNum: 50 }, clamp: true, wait: 0 }, false)).toBe("following");
  });

  it("stops at count, at bytes (never inside a record), and before the first record at or past until", async () => {
    const s = await stream();
    expect(await read(s, { start: { seqNum: 0 }, count: 4 })).toEqual([0, 1, 2, 3]);
    expect(await read(s, { start: { seqNum: 0 }, bytes: 45 })).toEqual([0, 1]); // 18 metered bytes each
    expect(await read(s, { start: { seqNum: 0 }, until: 130 })).toEqual([0, 1, 2]);
  });

  it("starts at the trim point when asked for records below it", async () => {
    const s = await stream();
    await s.append({ records: [trimRecord(6)] });
    expect(await read(s, { start: { seqNum: 0 }, count: 2 })).toEqual([6, 7]);
  });

  it("catches up, then follows: a heartbeat at the tail, then live batches as they become durable", async () => {
    const s = await stream();
    const c = await ReadCursor.open(s, { start: { seqNum: 8 } }, false);
    expect(seqs(await c.next())).toEqual([8, 9]);
    const following = await c.next();
    expect(following).toMatchObject({ kind: "following", tail: { seqNum: 10 } });
    const live = c.next(Date.now() + 5_000);
    await s.append({ records: [{ headers: [], body: enc.encode("new") }] });
    const step = await live;
    expect(seqs(step)).toEqual([10]);
    expect(step.kind === "batch" && step.batch.tail?.seqNum).toBe(11);
    expect((await c.next(Date.now() + 20)).kind).toBe("timeout");
    c.close();
  });
});
