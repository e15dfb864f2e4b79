/**
 * A stream on a local backend (src/lite/store/local-stream.ts) on the in-memory log: it
 * sequences in memory, acks in order once stored, refuses conditions against the next
 * assignable position, stops a chain at its first refusal, feeds followers durable batches
 * only, and after a failed write fails everything pending.
 */
import { describe, expect, it } from "vitest";
import { SeqNumMismatchError, type SvcError } from "../../../../src/errors.js";
import { MemoryBackend } from "../../../../src/lite/storage/memory.js";
import type { StreamMeta } from "../../../../src/lite/storage/types.js";
import type { LiveSubscriber } from "../../../../src/lite/store/live-fanout.js";
import { initialState } from "../../../../src/lite/store/live-stream.js";
import { LocalStream } from "../../../../src/lite/store/local-stream.js";
import { resolveStreamConfig } from "../../../../src/lite/store/stream-config.js";

const enc = new TextEncoder();
const input = (...bodies: string[]) => ({ records: bodies.map((b) => ({ headers: [], body: enc.encode(b) })) });
const meta = (id = 1): StreamMeta => ({
  basin: "b",
  name: `s${id}`,
  id,
  config: resolveStreamConfig({}, null),
  createdAt: new Date(0).toISOString(),
  deletedAt: null,
  requestKey: null,
});

function fresh(id = 1) {
  const backend = new MemoryBackend();
  backend.log.states.set(id, initialState(0));
  return { backend, stream: new LocalStream(meta(id), initialState(0), backend.log) };
}

describe("a local stream", () => {
  it("sequences pipelined appends and acks them in order, each with the tail at its ack", async () => {
    const { stream, backend } = fresh();
    const acks = await Promise.all([stream.append(input("a", "b")), stream.append(input("c"))]);
    expect(acks.map((a) => [a.start.seqNum, a.end.seqNum])).toEqual([
      [0, 2],
      [2, 3],
    ]);
    expect(acks[1]!.tail.seqNum).toBe(3);
    expect(stream.known.nextSeq).toBe(3);
    expect(backend.log.readBatches(1, 0, 10).map((b) => b.records.length)).toEqual([2, 1]);
  });

  it("judges match_seq_num against the next assignable position, and answers a refusal after what came before", async () => {
    const { stream } = fresh();
    const first = stream.submit(input("a"));
    const ok = stream.submit({ ...input("b"), matchSeqNum: 1 });
    const refused = stream.submit({ ...input("c"), matchSeqNum: 0 });
    expect([first.accepted, ok.accepted, refused.accepted]).toEqual([true, true, false]);
    let firstDone = false;
    void first.ack.then(() => {
      firstDone = true;
    });
    await expect(refused.ack).rejects.toEqual(new SeqNumMismatchError(2));
    expect(firstDone).toBe(true);
    expect((await ok.ack).start.seqNum).toBe(1);
  });

  it("applies nothing of a chain after its first refusal", async () => {
    const { stream } = fresh();
    const chain = { failed: false };
    const bad = stream.submit({ ...input("a"), matchSeqNum: 7 }, chain);
    const after = stream.submit(input("b"), chain);
    expect([bad.accepted, after.accepted, chain.failed]).toEqual([false, false, true]);
    await expect(bad.ack).rejects.toMatchObject({ code: "seq_num_mismatch" });
    await expect(after.ack).rejects.toBeDefined();
    expect(stream.known.nextSeq).toBe(0);
  });

  it("gives followers only durable batches, in order, and closes them on deletion", async () => {
    const { stream } = fresh();
    const got: number[][] = [];
    let ended: unknown;
    const at = (position: number): LiveSubscriber & { position: number } => ({
      position,
      shape: undefined,
      offer(b) {
        got.push(b.records.map((r) => r.seqNum));
        this.position = b.end;
        return true;
      },
      evicted(why) {
        ended = why;
      },
    });
    const f = at(0);
    expect(stream.follow(f)).toBe(true);
    expect(stream.follow(at(5)), "a follower ahead of the tail waits for it").toBe(true);
    const pending = stream.append(input("a"));
    await new Promise((r) => setImmediate(r));
    expect(got).toHaveLength(0); // not durable yet
    await pending;
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual([[0]]);
    stream.markDeleting();
    expect((ended as SvcError).code).toBe("stream_deletion_pending");
    expect(() => stream.follow(at(1))).toThrow(expect.objectContaining({ code: "stream_deletion_pending" }));
    await expect(stream.append(input("b"))).rejects.toMatchObject({ code: "stream_deletion_pending" });
  });

  it("after a failed write, fails everything pending and refuses more until reloaded", async () => {
    const { stream, backend } = fresh();
    const real = backend.log.appendBatch.bind(backend.log);
    let calls = 0;
    backend.log.appendBatch = (id, batch, state) =>
      ++calls === 2 ? Promise.reject(new Error("disk gone")) : real(id, batch, state);
    const results = await Promise.allSettled([
      stream.append(input("a")),
      stream.append(input("b")),
      stream.append(input("c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    expect(stream.broken?.code).toBe("storage");
    await expect(stream.append(input("d"))).rejects.toMatchObject({ code: "storage" });
    expect(backend.log.getState(1)!.nextSeq).toBe(1); // nothing beyond the hole
  });
});
