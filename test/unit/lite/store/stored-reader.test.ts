/**
 * What one read sees of a local stream's stored records (src/lite/store/stored-reader.ts,
 * LocalReader): runs from the position up to the exact tail, what lies below the removal mark
 * and expired batches skipped (a trim point not yet carried out skips nothing), gaps the sweep left stepped over, and the stored batches read last kept
 * between calls (how many are read at once judged by the last one and the room left).
 */
import { describe, expect, it } from "vitest";
import type { StoredBatch, StreamStateRecord } from "../../../../src/lite/storage/types.js";
import { LocalReader, type Room, type StoredStep } from "../../../../src/lite/store/stored-reader.js";
import { streamMeta } from "../../../helpers/scripted-shared-log.js";

const ROOM: Room = { records: 1000, bytes: 1 << 20 };

/** `count` one-byte records from `first`, arrived at `arrival`. */
function batch(first: number, count: number, arrival = Date.now()): StoredBatch {
  const records = Array.from({ length: count }, (_, i) => ({
    seqNum: first + i,
    timestamp: 0,
    headers: [],
    body: new Uint8Array([1]),
  }));
  return { firstSeq: first, arrival, lastTimestamp: 0, records };
}

/** A local stream's view for the reader: `stored` batches, the state it knows, each read of storage counted. */
function local(stored: StoredBatch[], known: Partial<StreamStateRecord>, retentionSecs?: number, removedBelow = 0) {
  const reads: [number, number][] = [];
  const stream = {
    meta: streamMeta(1, retentionSecs === undefined ? {} : { retention_policy: { age: retentionSecs } }),
    known: { nextSeq: 0, lastTimestamp: 0, fencingToken: "", trimPoint: 0, lastArrival: 0, ...known },
    removedBelow,
    stored,
    readBatches(fromSeq: number, max: number): StoredBatch[] {
      reads.push([fromSeq, max]);
      return this.stored.filter((b) => b.firstSeq + b.records.length > fromSeq).slice(0, max);
    },
  };
  return { stream, reads, reader: new LocalReader(stream) };
}

const run = (s: StoredStep) => (s.kind === "run" ? [s.batch.firstSeq, s.from, s.to] : s);

describe("a local stream's stored reader", () => {
  it("returns runs from the position to the end of its batch, then the end at the tail", () => {
    const { reader } = local([batch(0, 3), batch(3, 3), batch(6, 4)], { nextSeq: 10 });
    expect(run(reader.next(4, ROOM))).toEqual([3, 4, 6]);
    expect(run(reader.next(6, ROOM))).toEqual([6, 6, 10]);
    expect(reader.next(10, ROOM)).toEqual({ kind: "end", at: 10 });
    expect(reader.next(12, ROOM), "past the tail").toEqual({ kind: "end", at: 12 });
  });

  it("keeps the batches it read: a read that goes on inside them does not read storage again", () => {
    const stored = Array.from({ length: 10 }, (_, i) => batch(i * 2, 2));
    const { reader, reads } = local(stored, { nextSeq: 20 });
    expect(run(reader.next(0, ROOM))).toEqual([0, 0, 2]);
    expect(run(reader.next(1, ROOM))).toEqual([0, 1, 2]);
    expect(reads, "one batch first").toEqual([[0, 1]]);
    for (let p = 2; p < 20; p += 2) expect(run(reader.next(p, ROOM))).toEqual([p, p, p + 2]);
    expect(reads.length, "then as many as the room takes, judged by the last batch (64 at most)").toBe(2);
    expect(reads[1]).toEqual([2, 64]);
  });

  it("reads as many batches next as the room left takes", () => {
    const stored = Array.from({ length: 10 }, (_, i) => batch(i * 3, 3));
    const { reader, reads } = local(stored, { nextSeq: 30 });
    reader.next(0, ROOM);
    reader.next(3, { records: 7, bytes: 1 << 20 });
    expect(reads[1], "7 records: 3 batches of 3").toEqual([3, 3]);
    reader.next(12, { records: 1000, bytes: 20 });
    expect(reads[2], "20 bytes: 1 batch of 3 records of 9 metered bytes").toEqual([12, 1]);
  });

  it("starts at the removal mark, never below it; a trim point not carried out yet hides nothing", () => {
    const { reader } = local([batch(0, 3), batch(3, 3), batch(6, 4)], { nextSeq: 10, trimPoint: 4 }, undefined, 4);
    expect(run(reader.next(0, ROOM))).toEqual([3, 4, 6]);
    expect(run(reader.next(6, ROOM))).toEqual([6, 6, 10]);
    const { reader: pending } = local([batch(0, 3), batch(3, 3)], { nextSeq: 6, trimPoint: 4 });
    expect(run(pending.next(0, ROOM))).toEqual([0, 0, 3]);
  });

  it("steps over expired batches, and over a gap the sweep left", () => {
    const old = Date.now() - 60_000;
    const { reader } = local([batch(0, 3, old), batch(3, 3, old), batch(8, 2)], { nextSeq: 10 }, 10);
    expect(run(reader.next(0, ROOM)), "from ≥ the position asked").toEqual([8, 8, 10]);
    const { reader: all } = local([batch(0, 3, old)], { nextSeq: 3 }, 10);
    expect(all.next(0, ROOM)).toEqual({ kind: "end", at: 3 });
  });

  it("never runs past the tail it knows, though storage may hold more", () => {
    const { reader } = local([batch(0, 3), batch(3, 3)], { nextSeq: 5 });
    expect(run(reader.next(3, ROOM))).toEqual([3, 3, 5]);
    expect(reader.next(5, ROOM)).toEqual({ kind: "end", at: 5 });
    const { reader: ahead } = local([batch(0, 3), batch(3, 3)], { nextSeq: 3 });
    expect(ahead.next(2, { records: 1, bytes: 1 })).toMatchObject({ kind: "run", from: 2, to: 3 });
    expect(ahead.next(3, ROOM)).toEqual({ kind: "end", at: 3 });
    const { reader: beyond } = local([batch(6, 3)], { nextSeq: 5 });
    expect(beyond.next(3, ROOM), "the first batch stored lies past the tail").toEqual({ kind: "end", at: 5 });
  });

  it("ends at the tail when nothing is stored from the position", () => {
    const { reader } = local([], { nextSeq: 4, trimPoint: 0 });
    expect(reader.next(1, ROOM)).toEqual({ kind: "end", at: 4 });
  });
});
