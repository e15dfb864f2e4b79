/**
 * A stream on a shared backend (src/lite/store/shared-stream.ts) over a scripted sequencer
 * (test/helpers/scripted-shared-log.ts, the rules of storage/pg/sequencer-sql.ts): group commit
 * (one statement in flight, what queued meanwhile is the next group, 512 appends or 8 MiB at
 * most), landing (acks in order with the seq nums and timestamp floors the database gave,
 * refusals), a failed statement (outcome unknown for a session with several inputs in it), what
 * the node knows only moving forward, and live batches published to the fan-out in order,
 * other nodes' read once.
 */
import { describe, expect, it } from "vitest";
import { FencingTokenMismatchError, SeqNumMismatchError, SvcError } from "../../../../src/errors.js";
import type { LiveBatch, LiveSubscriber } from "../../../../src/lite/store/live-fanout.js";
import type { Chain } from "../../../../src/lite/store/live-stream.js";
import { OutcomeUnknown } from "../../../../src/lite/wire-error.js";
import { fenceRecord, trimRecord } from "../../../../src/rules/commands.js";
import type { AppendAck, AppendInput, AppendRecord } from "../../../../src/types.js";
import { ScriptedSharedLog, sharedStream, storedState } from "../../../helpers/scripted-shared-log.js";

/** `n` records of one byte, with client timestamp `ts` when given. */
function input(n: number, ts?: number, more: Partial<AppendInput> = {}): AppendInput {
  const records: AppendRecord[] = Array.from({ length: n }, () => ({
    headers: [],
    body: new Uint8Array([7]),
    ...(ts === undefined ? {} : { timestamp: ts }),
  }));
  return { records, ...more };
}

const range = (a: AppendAck) => [a.start.seqNum, a.end.seqNum];

/** Settles `p` into its value or its error, so a test can look at refusals and acks alike. */
const outcome = (p: Promise<AppendAck>): Promise<AppendAck | SvcError> =>
  p.then(
    (a) => a,
    (e: SvcError) => e,
  );

/** A follower that takes every batch at its position and remembers it. */
function follower(position: number) {
  const f = {
    position,
    shape: undefined,
    got: [] as number[][],
    evictions: [] as unknown[],
    offer(b: LiveBatch) {
      f.got.push(b.records.map((r) => r.seqNum));
      f.position = b.end;
      return true;
    },
    evicted(why: unknown) {
      f.evictions.push(why);
    },
  };
  return f satisfies LiveSubscriber;
}

/** Lets pending deliveries run (the fan-out delivers on a later turn of the event loop). */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

describe("a shared stream's group commit", () => {
  it("has one statement in flight; what queues meanwhile is the next group, acked in order", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const order: string[] = [];
    const ack = (name: string, p: Promise<AppendAck>) => p.then((a) => (order.push(name), a));
    const a = ack("a", stream.append(input(1)));
    expect(log.groups.length, "the first append goes at once").toBe(1);
    const b = ack("b", stream.append(input(2)));
    const c = ack("c", stream.append(input(1)));
    expect(log.groups.length, "one statement in flight per stream").toBe(1);
    await log.answer();
    expect(log.groups.map((g) => g.map((p) => p.count))).toEqual([[1], [2, 1]]);
    expect(
      log.groups[1]!.map((p) => p.plannedFirst),
      "planned after the tail the first answer told",
    ).toEqual([1, 3]);
    await log.answer();
    expect([await a, await b, await c].map(range)).toEqual([
      [0, 1],
      [1, 3],
      [3, 4],
    ]);
    expect(order).toEqual(["a", "b", "c"]);
    expect((await b).tail.seqNum, "the stored tail after the group").toBe(4);
    expect(stream.known.nextSeq).toBe(4);
  });

  it("sends at most 512 appends in one statement", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const acks = [stream.append(input(1))];
    for (let i = 0; i < 600; i++) acks.push(stream.append(input(1)));
    while (log.waiting > 0) await log.answer();
    expect(log.groups.map((g) => g.length)).toEqual([1, 512, 88]);
    expect((await Promise.all(acks)).map((a) => a.start.seqNum)).toEqual(acks.map((_, i) => i));
  });

  it("sends at most 8 MiB of input in one statement, and an append bigger than that alone", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const mib = (n: number): AppendInput => ({ records: [{ headers: [], body: new Uint8Array(n << 20) }] });
    const acks = [stream.append(input(1))];
    // 1 MiB + 16 bytes each as the planner counts them: 7 fit in 8 MiB, the 8th does not.
    for (let i = 0; i < 9; i++) acks.push(stream.append(mib(1)));
    acks.push(stream.append(mib(9)), stream.append(input(1)));
    while (log.waiting > 0) await log.answer();
    expect(log.groups.map((g) => g.length)).toEqual([1, 7, 2, 1, 1]);
    expect((await Promise.all(acks)).map((a) => a.start.seqNum)).toEqual(acks.map((_, i) => i));
  });

  it("plans each append: its chain, its conditions and commands, timestamps from 0 (the database applies the floor)", async () => {
    const log = new ScriptedSharedLog();
    log.state().lastTimestamp = 1000;
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const first = stream.append(input(1, 2000));
    const x: Chain = { failed: false };
    const y: Chain = { failed: false };
    stream.submit(input(1, 700), x);
    stream.submit({ records: [fenceRecord("t1", 700), trimRecord(1, 700)] }, y);
    stream.submit(input(1, 700, { matchSeqNum: 4, fencingToken: "t1" }), x);
    stream.submit(input(1, 700));
    stream.submit(input(1, 700));
    await log.answer();
    const plans = log.groups[1]!;
    const chains = plans.map((p) => p.chain);
    expect(chains[0], "one chain, one number").toBe(chains[2]);
    expect(new Set(chains).size, "each other append its own").toBe(4);
    expect(plans[2]).toMatchObject({ matchSeqNum: 4, fencingToken: "t1", plannedFirst: 4 });
    expect(plans[1]!.commands).toEqual([
      { index: 0, fence: "t1" },
      { index: 1, trim: 1 },
    ]);
    expect(
      plans.map((p) => p.lastTimestamp),
      "the records' own, below the stored last timestamp",
    ).toEqual([700, 700, 700, 700, 700]);
    await log.answer();
    expect((await first).start.timestamp).toBe(2000);
    expect(log.state(), "the database applied the commands").toMatchObject({ fencingToken: "t1", trimPoint: 1 });
  });
});

describe("a shared stream's landing", () => {
  it("acks where the database put the appends, timestamps raised to the stored floor; the cache serves them so", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const ack = stream.append(input(2, 100));
    log.appendElsewhere(5, 900); // another node's group took the lock first
    await log.answer();
    const a = await ack;
    expect(range(a)).toEqual([5, 7]);
    expect([a.start.timestamp, a.end.timestamp], "max(floor, own)").toEqual([900, 900]);
    expect(a.tail).toEqual({ seqNum: 7, timestamp: 900 });
    const served = await stream.readBatches(5, 4);
    expect(log.batchReads, "served from the node's cache").toEqual([]);
    expect(served[0]!.records.map((r) => [r.seqNum, r.timestamp])).toEqual([
      [5, 900],
      [6, 900],
    ]);
    expect(stream.known.nextSeq).toBe(7);
  });

  it("refuses by the stored fencing token, then match_seq_num; skips the rest of a refused chain; lands the others", async () => {
    const log = new ScriptedSharedLog();
    log.state().fencingToken = "mine";
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const x: Chain = { failed: false };
    const y: Chain = { failed: false };
    const first = outcome(stream.append(input(1)));
    const x1 = outcome(stream.submit(input(1, undefined, { fencingToken: "theirs", matchSeqNum: 1 }), x).ack);
    const x2 = outcome(stream.submit(input(1), x).ack);
    const y1 = outcome(stream.submit(input(1, undefined, { matchSeqNum: 99 }), y).ack);
    const z = outcome(stream.append(input(1)));
    await log.answer();
    await log.answer();
    expect(range((await first) as AppendAck)).toEqual([0, 1]);
    const fenced = await x1;
    expect(fenced, "the fencing token is judged first").toBeInstanceOf(FencingTokenMismatchError);
    expect((fenced as FencingTokenMismatchError).expected).toBe("mine");
    expect(await x2, "after a refusal of its chain").toMatchObject({ code: "invalid", message: /not applied/ });
    expect(await y1).toBeInstanceOf(SeqNumMismatchError);
    expect(((await y1) as SeqNumMismatchError).expected, "the stored next seq num").toBe(1);
    expect(range((await z) as AppendAck), "lands at the stored tail, not where it was planned").toEqual([1, 2]);
    expect(x.failed && y.failed).toBe(true);
    const later = stream.submit(input(1), x);
    expect(later.accepted, "a refused chain takes nothing more").toBe(false);
    expect(await outcome(later.ack)).toMatchObject({ code: "invalid", message: /not applied/ });
    expect(log.groups.length).toBe(2);
  });

  it.each([
    ["gone", "stream_not_found"],
    ["deleting", "stream_deletion_pending"],
  ] as const)("answers a group the database refused as %s with %s, and seals the stream", async (how, code) => {
    const log = new ScriptedSharedLog();
    const { stream } = sharedStream(log);
    const f = follower(0);
    expect(stream.follow(f)).toBe(true);
    if (how === "gone") log.streams.delete(1);
    else log.state().live = false;
    expect(await outcome(stream.append(input(1)))).toMatchObject({ code });
    expect(stream.deleting).toBe(true);
    expect(f.evictions, "followers end").toMatchObject([{ code: "stream_deletion_pending" }]);
    const next = stream.submit(input(1));
    expect(next.accepted).toBe(false);
    expect(await outcome(next.ack)).toMatchObject({ code: "stream_deletion_pending" });
    expect(() => stream.follow(follower(0))).toThrow(/being deleted/);
    expect(log.groups.length, "nothing more is sent").toBe(1);
  });

  it("answers appends queued when the stream was sealed without sending them", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const sent = outcome(stream.append(input(1)));
    const queued = outcome(stream.append(input(1)));
    stream.markDeleting();
    await log.answer();
    expect(range((await sent) as AppendAck), "the statement in flight committed").toEqual([0, 1]);
    expect(await queued).toMatchObject({ code: "stream_deletion_pending" });
    expect(log.groups.length).toBe(1);
  });

  it("settles whenIdle once every append submitted so far has settled, refusals included", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const settled: string[] = [];
    void outcome(stream.append(input(1))).then(() => settled.push("a"));
    void outcome(stream.append(input(1, undefined, { matchSeqNum: 7 }))).then(() => settled.push("b"));
    const idle = stream.whenIdle().then(() => settled.push("idle"));
    await log.answer();
    expect(settled, "b is still in flight").toEqual(["a"]);
    await log.answer();
    await idle;
    await turns();
    expect(settled.sort()).toEqual(["a", "b", "idle"]);
  });
});

describe("a shared stream whose statement failed", () => {
  async function failedGroup(error: unknown) {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const first = stream.append(input(1));
    const s: Chain = { failed: false };
    const t: Chain = { failed: false };
    const got = {
      s1: outcome(stream.submit(input(1), s).ack),
      s2: outcome(stream.submit(input(1), s).ack),
      t1: outcome(stream.submit(input(1), t).ack),
      u: outcome(stream.append(input(1))),
    };
    await log.answer();
    await first;
    await log.fail(error);
    return { stream, log, s, t, got };
  }

  it("cuts off a session with several inputs in it (outcome unknown); the others get the failure itself", async () => {
    const lost = new Error("connection reset while waiting for the commit");
    const { stream, s, t, got } = await failedGroup(lost);
    for (const k of ["s1", "s2"] as const) {
      const e = await got[k];
      expect(e, k).toBeInstanceOf(OutcomeUnknown);
      expect(e).toMatchObject({ code: "storage", sideEffects: true, cause: lost });
    }
    expect(await got.t1, "one input of its session in the group").toBe(lost);
    expect(await got.u).toBe(lost);
    expect(s.failed && t.failed, "the sessions stop").toBe(true);
    expect(stream.known.nextSeq, "nothing known landed").toBe(1);
  });

  it("gives every append a failure known to have had no effect as it is", async () => {
    const refused = new SvcError({
      code: "unavailable",
      message: "nothing written",
      origin: "server",
      sideEffects: false,
    });
    const { got } = await failedGroup(refused);
    for (const k of ["s1", "s2", "t1", "u"] as const) expect(await got[k], k).toBe(refused);
  });

  it("goes on with the next group after a failed one", async () => {
    const { stream, log } = await failedGroup(new Error("lost"));
    const after = stream.append(input(1));
    await log.answer();
    expect(range(await after)).toEqual([1, 2]);
  });
});

describe("what a shared stream knows", () => {
  it("only moves forward: an older state (its own group's answer, a stale read) never takes it back", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const ack = stream.append(input(1));
    stream.observe(storedState(10, { lastTimestamp: 5 }));
    await log.answerWith({ outcomes: [{ ok: true, firstSeq: 0, timestampFloor: 0 }], state: storedState(1) });
    expect(range(await ack)).toEqual([0, 1]);
    expect(stream.known.nextSeq).toBe(10);
    stream.observe(storedState(4));
    expect(stream.known).toMatchObject({ nextSeq: 10, lastTimestamp: 5 });
  });

  it("learns a trim carried out from a stored state: told once, and the cache forgets what lies below it", async () => {
    const log = new ScriptedSharedLog();
    let trims = 0;
    const { stream, cache } = sharedStream(log, { onTrim: () => trims++ });
    for (let i = 0; i < 3; i++) await stream.append(input(2));
    expect(cache.get(1, 0, 10).length).toBe(3);
    log.trimElsewhere(4);
    await stream.tailNow();
    expect(trims).toBe(1);
    expect(stream.known.trimPoint).toBe(4);
    expect(
      cache.get(1, 0, 10).map((b) => b.firstSeq),
      "batches wholly below the trim point",
    ).toEqual([]);
    expect(cache.get(1, 4, 10).map((b) => b.firstSeq)).toEqual([4]);
    await stream.tailNow();
    expect(trims, "the same trim point again").toBe(1);
  });

  it("learns its own trim from its group's answer, and keeps serving its records until the sweep carries it out", async () => {
    const log = new ScriptedSharedLog();
    let trims = 0;
    const { stream, cache } = sharedStream(log, { onTrim: () => trims++ });
    for (let i = 0; i < 3; i++) await stream.append(input(2));
    await stream.append({ records: [trimRecord(4)] });
    expect([trims, stream.known.trimPoint, stream.removedBelow]).toEqual([1, 4, 0]);
    expect(cache.get(1, 0, 10).map((b) => b.firstSeq)).toEqual([0, 2, 4, 6]);
    stream.noteRemoved(4);
    expect(cache.get(1, 0, 10).map((b) => b.firstSeq)).toEqual([]);
    expect(cache.get(1, 4, 10).map((b) => b.firstSeq)).toEqual([4, 6]);
  });

  it("answers tailNow from the database: a stream gone is 404, one being deleted 409, and both seal it", async () => {
    const log = new ScriptedSharedLog([1, 2]);
    const one = sharedStream(log).stream;
    const two = sharedStream(log, { id: 2 }).stream;
    log.appendElsewhere(3, 40);
    expect(await one.tailNow()).toEqual({ seqNum: 3, timestamp: 40 });
    expect(one.known.nextSeq).toBe(3);
    log.streams.delete(1);
    log.state(2).live = false;
    await expect(one.tailNow()).rejects.toMatchObject({ code: "stream_not_found" });
    await expect(two.tailNow()).rejects.toMatchObject({ code: "stream_deletion_pending" });
    expect([one.deleting, two.deleting]).toEqual([true, true]);
  });
});

describe("a shared stream's live batches", () => {
  it("publishes its own landed batches to its followers in order, whole whatever they trim", async () => {
    const log = new ScriptedSharedLog();
    const { stream } = sharedStream(log);
    const f = follower(0);
    expect(stream.follow(f)).toBe(true);
    await stream.append(input(1));
    await stream.append(input(2));
    await stream.append({ records: [trimRecord(2)] });
    await turns();
    expect(f.got.flat()).toEqual([0, 1, 2, 3]);
    expect(log.batchReads, "no read of storage").toEqual([]);
  });

  it("reads what another node appended once, from storage, for all its followers, then its own after it", async () => {
    const log = new ScriptedSharedLog();
    const { stream } = sharedStream(log);
    const fs = [follower(0), follower(0)];
    for (const f of fs) stream.follow(f);
    log.appendElsewhere(2);
    log.appendElsewhere(1);
    await stream.tailNow();
    await turns();
    expect(log.batchReads.length, "read once").toBe(1);
    await stream.append(input(2));
    await turns();
    for (const f of fs) expect(f.got.flat()).toEqual([0, 1, 2, 3, 4]);
    expect(log.batchReads.length).toBe(1);
  });

  it("serves another node's batches from the cache when it holds them", async () => {
    const log = new ScriptedSharedLog();
    const { stream, cache } = sharedStream(log);
    log.appendElsewhere(3);
    cache.put(1, await log.readBatches(1, 0, 16)); // a read on this node brought them here
    log.batchReads.length = 0;
    const f = follower(0);
    stream.follow(f);
    await stream.tailNow();
    await turns();
    expect(f.got.flat()).toEqual([0, 1, 2]);
    expect(log.batchReads).toEqual([]);
  });

  it("publishes in order when its own group landed after another node's", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const f = follower(0);
    stream.follow(f);
    const ack = stream.append(input(1));
    log.appendElsewhere(2);
    await log.answer();
    expect(range(await ack)).toEqual([2, 3]);
    await turns();
    expect(f.got.flat()).toEqual([0, 1, 2]);
    expect(f.evictions).toEqual([]);
    expect(stream.known.nextSeq).toBe(3);
  });

  it("sends every follower to storage when another node's records are gone (trimmed) or cannot be read", async () => {
    const log = new ScriptedSharedLog();
    const { stream } = sharedStream(log);
    const f = follower(0);
    stream.follow(f);
    log.appendElsewhere(3);
    log.trimElsewhere(3);
    log.appendElsewhere(2);
    await stream.tailNow();
    await turns();
    expect(f.got).toEqual([]);
    expect(f.evictions).toEqual(["lagged"]);

    const g = follower(5);
    expect(stream.follow(g), "the fan-out moved past the gap").toBe(true);
    log.readBatches = async () => {
      throw new Error("read failed");
    };
    log.appendElsewhere(1);
    await stream.tailNow();
    await turns();
    expect(g.evictions).toEqual(["lagged"]);
  });

  it("reads nothing for nobody: without followers another node's appends only move the fan-out on", async () => {
    const log = new ScriptedSharedLog();
    const { stream } = sharedStream(log);
    log.appendElsewhere(3);
    await stream.tailNow();
    await turns();
    expect(log.batchReads).toEqual([]);
    expect(stream.follow(follower(0)), "behind what the stream moved past: storage first").toBe(false);
    expect(stream.follow(follower(3))).toBe(true);
  });
});
