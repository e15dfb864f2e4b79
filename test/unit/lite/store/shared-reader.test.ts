/**
 * What one read sees of a shared stream's stored records (src/lite/store/shared-reader.ts), over
 * a scripted sequencer (test/helpers/scripted-shared-log.ts) and no batch cache, so every read
 * of storage and every ask for the tail reaches the script and is counted: records below the
 * tail the node knows are read without asking anyone; the database is asked only where the
 * answer depends on the tail now (at the known tail, after an empty read, at a gap); a gap
 * another node's trim left restarts the output batch past it; expired batches are skipped.
 */
import { describe, expect, it } from "vitest";
import { BatchCache } from "../../../../src/lite/store/batch-cache.js";
import type { Room, StoredStep } from "../../../../src/lite/store/stored-reader.js";
import { ScriptedSharedLog, sharedStream } from "../../../helpers/scripted-shared-log.js";

const ROOM: Room = { records: 1000, bytes: 1 << 20 };

const run = (s: StoredStep) => (s.kind === "run" ? [s.batch.firstSeq, s.from, s.to] : s);

/** A shared stream of three batches, 0..3, 3..6, 6..9, that its node knows all of. */
function nine(retentionSecs?: number, arrivals: number[] = []) {
  const log = new ScriptedSharedLog();
  for (let i = 0; i < 3; i++) log.appendElsewhere(3, 0, 1, arrivals[i] ?? Date.now());
  const { stream } = sharedStream(log, {
    cache: new BatchCache(0),
    ...(retentionSecs === undefined ? {} : { config: { retention_policy: { age: retentionSecs } } }),
  });
  return { log, stream };
}

describe("a shared stream's stored reader", () => {
  it("reads below the tail it knows without asking for the tail, keeping the batches it read", async () => {
    const { log, stream } = nine();
    const reader = stream.reader(-1);
    expect(run(await reader.next(0, ROOM))).toEqual([0, 0, 3]);
    expect(run(await reader.next(3, ROOM))).toEqual([3, 3, 6]);
    expect(run(await reader.next(6, ROOM))).toEqual([6, 6, 9]);
    expect(log.batchReads, "one batch, then as many as the room takes").toEqual([
      [0, 1],
      [3, 64],
    ]);
    expect(log.stateReads.length, "tail asked").toBe(0);
  });

  it("asks once at the tail it knows, and not again there once the database confirmed it", async () => {
    const { log, stream } = nine();
    const reader = stream.reader(-1);
    expect(await reader.next(9, ROOM)).toEqual({ kind: "end", at: 9 });
    expect(log.stateReads.length).toBe(1);
    expect(await reader.next(9, ROOM)).toEqual({ kind: "end", at: 9 });
    expect(log.stateReads.length).toBe(1);
    const confirmed = stream.reader(9);
    expect(await confirmed.next(9, ROOM), "given the tail the read started with").toEqual({ kind: "end", at: 9 });
    expect(log.stateReads.length).toBe(1);
  });

  it("reads on past the tail it knew when the database says other nodes appended", async () => {
    const { log, stream } = nine();
    log.appendElsewhere(3);
    const reader = stream.reader(-1);
    expect(run(await reader.next(9, ROOM))).toEqual([9, 9, 12]);
    expect(stream.known.nextSeq, "what the node knows moved on").toBe(12);
    expect(await reader.next(12, ROOM)).toEqual({ kind: "end", at: 12 });
    expect(log.stateReads.length).toBe(1);
  });

  it("restarts past a gap another node's trim left, at the trim point now, and reads storage again", async () => {
    const { log, stream } = nine();
    const reader = stream.reader(-1);
    expect(run(await reader.next(0, ROOM))).toEqual([0, 0, 3]);
    log.trimElsewhere(7); // 0..6 removed; 6..9 stays, its records below 7 trimmed
    expect(await reader.next(3, ROOM)).toEqual({ kind: "restart", from: 7 });
    expect(log.stateReads.length, "the tail and trim point asked once").toBe(1);
    expect(stream.known.trimPoint).toBe(7);
    const before = log.batchReads.length;
    expect(run(await reader.next(7, ROOM))).toEqual([6, 7, 9]);
    expect(log.batchReads.length, "what it kept may hold removed records").toBe(before + 1);
  });

  it("restarts at the first batch left when the gap lies past the trim point", async () => {
    const { log, stream } = nine();
    const reader = stream.reader(-1);
    await reader.next(0, ROOM);
    // Removed by the sweep (expired elsewhere), no trim: the gap ends at the next stored batch.
    await log.deleteBatchesBelow(1, 6, 10);
    expect(await reader.next(3, ROOM)).toEqual({ kind: "restart", from: 6 });
  });

  it("asks for the tail once when storage holds nothing from the position, then ends there", async () => {
    const { log, stream } = nine();
    const reader = stream.reader(-1);
    await reader.next(0, ROOM);
    log.trimElsewhere(9);
    const reads = log.batchReads.length;
    expect(await reader.next(3, ROOM)).toEqual({ kind: "end", at: 9 });
    expect(log.stateReads.length).toBe(1);
    expect(log.batchReads.length, "storage read again after the tail was asked").toBe(reads + 2);
  });

  it("starts at the removal mark it knows; a trim not carried out yet hides nothing", async () => {
    const log = new ScriptedSharedLog();
    for (let i = 0; i < 3; i++) log.appendElsewhere(3);
    log.state().trimPoint = 4;
    const { stream } = sharedStream(log, { cache: new BatchCache(0) });
    expect(run(await stream.reader(-1).next(0, ROOM))).toEqual([0, 0, 3]);
    log.state().removedBelow = 4;
    stream.observe(log.state());
    expect(run(await stream.reader(-1).next(0, ROOM))).toEqual([3, 4, 6]);
    expect(log.stateReads.length).toBe(0);
  });

  it("skips expired batches without asking; reaching the tail so asks once", async () => {
    const old = Date.now() - 60_000;
    const { log, stream } = nine(10, [old]);
    expect(run(await stream.reader(-1).next(0, ROOM))).toEqual([3, 3, 6]);
    expect(log.stateReads.length).toBe(0);
    const { log: log2, stream: all } = nine(10, [old, old, old]);
    expect(await all.reader(-1).next(0, ROOM)).toEqual({ kind: "end", at: 9 });
    expect(log2.stateReads.length).toBe(1);
  });
});
