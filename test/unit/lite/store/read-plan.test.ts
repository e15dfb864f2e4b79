/**
 * A read's plan (src/lite/store/read-plan.ts, protocol.md §7): the unary caps and the `wait`
 * defaults, an SSE read resumed after its last event, and where a read starts with the 416
 * rules, over a scripted stream that counts how often the tail is asked for.
 */
import { describe, expect, it } from "vitest";
import type { StoredBatch } from "../../../../src/lite/storage/types.js";
import type { LiveStream } from "../../../../src/lite/store/live-stream.js";
import { planRead, type ReadPlan, resolveStart, resumedAfter } from "../../../../src/lite/store/read-plan.js";
import { LIMITS, type ReadParams } from "../../../../src/types.js";

describe("a read's plan", () => {
  it("caps a unary read at 1000 records and 1 MiB, and takes those when unset", () => {
    expect(planRead({}, true)).toMatchObject({ count: 1000, bytes: 1 << 20, waitMs: 0, canFollow: false });
    expect(planRead({ count: 5000, bytes: 5 << 20 }, true)).toMatchObject({ count: 1000, bytes: 1 << 20 });
    expect(planRead({ count: 3, bytes: 10 }, true)).toMatchObject({ count: 3, bytes: 10 });
    expect([LIMITS.maxUnaryReadRecords, LIMITS.maxUnaryReadBytes]).toEqual([1000, 1 << 20]);
  });

  it("lets a unary read wait (a long poll) up to 60 s, and follow only then", () => {
    expect(planRead({ wait: 5 }, true)).toMatchObject({ waitMs: 5000, canFollow: true });
    expect(planRead({ wait: 600 }, true)).toMatchObject({ waitMs: 60_000, canFollow: true });
    expect(planRead({ wait: 0 }, true)).toMatchObject({ waitMs: 0, canFollow: false });
  });

  it("leaves a session unbounded and following by default, without an idle bound", () => {
    expect(planRead({}, false)).toMatchObject({
      count: Infinity,
      bytes: Infinity,
      waitMs: undefined,
      canFollow: true,
      clamp: false,
    });
    expect(planRead({ wait: 3 }, false)).toMatchObject({ waitMs: 3000, canFollow: true });
    expect(planRead({ wait: 0 }, false), "wait=0 and no limits: to the tail").toMatchObject({
      waitMs: 0,
      canFollow: true,
    });
  });

  it("makes a session with any limit stop at the tail unless it may wait", () => {
    for (const limit of [{ count: 5 }, { bytes: 100 }, { until: 50 }] as ReadParams[]) {
      expect(planRead(limit, false), JSON.stringify(limit)).toMatchObject({ waitMs: 0, canFollow: false });
      expect(planRead({ ...limit, wait: 2 }, false)).toMatchObject({ waitMs: 2000, canFollow: true });
    }
  });

  it("refuses a timestamp start at or past `until`", () => {
    expect(() => planRead({ start: { timestamp: 50 }, until: 50 }, true)).toThrow(
      expect.objectContaining({ code: "invalid", status: 422 }),
    );
    expect(planRead({ start: { timestamp: 49 }, until: 50 }, false)).toMatchObject({ until: 50 });
    expect(planRead({ start: { seqNum: 50 }, until: 50 }, false), "a seq num start is another axis").toMatchObject({
      until: 50,
    });
  });
});

describe("an SSE read resumed after its last event", () => {
  it("starts after the last record, its limits lowered by what was delivered, never below 0; the rest as planned", () => {
    const p = planRead({ start: { tailOffset: 3 }, count: 10, bytes: 100, wait: 5, clamp: true }, false);
    expect(resumedAfter(p, { seqNum: 41, count: 4, bytes: 30 })).toEqual({
      ...p,
      start: { seqNum: 42 },
      count: 6,
      bytes: 70,
    });
    expect(resumedAfter(p, { seqNum: 41, count: 12, bytes: 300 })).toMatchObject({ count: 0, bytes: 0 });
    const open = planRead({}, false);
    expect(resumedAfter(open, { seqNum: 0, count: 1, bytes: 9 }), "no limits: none made up").toEqual({
      ...open,
      start: { seqNum: 1 },
    });
    expect(open).toMatchObject({ count: Infinity, bytes: Infinity, canFollow: true });
  });
});

/**
 * A stream whose known tail is `known` and whose tail now is 10 records, timestamps 100..190
 * (record i at 100 + 10 i), two per stored batch; records below `trimmed` are gone.
 */
function stream(known = 10, trimmed = 0) {
  let asked = 0;
  const all = Array.from({ length: 10 }, (_, i) => ({
    seqNum: i,
    timestamp: 100 + 10 * i,
    headers: [],
    body: new Uint8Array(1),
  }));
  const batches: StoredBatch[] = [];
  for (let i = 0; i < 10; i += 2) {
    const records = all.slice(i, i + 2).filter((r) => r.seqNum >= trimmed);
    if (records.length > 0)
      batches.push({ firstSeq: records[0]!.seqNum, arrival: 1, lastTimestamp: 100 + 10 * (i + 1), records });
  }
  const s = {
    known: {
      nextSeq: known,
      lastTimestamp: known === 0 ? 0 : 90 + 10 * known,
      fencingToken: "",
      trimPoint: 0,
      lastArrival: 1,
    },
    tailNow: async () => (asked++, { seqNum: 10, timestamp: 190 }),
    findTimestamp: async (t: number) => batches.find((b) => b.lastTimestamp >= t)?.firstSeq,
    readBatches: async (from: number, max: number) =>
      batches.filter((b) => b.firstSeq + b.records.length > from).slice(0, max),
  };
  return { stream: s as unknown as LiveStream, asked: () => asked };
}

type Start = Pick<ReadPlan, "start" | "clamp" | "canFollow">;
const plan = (start: ReadPlan["start"], more: Partial<Start> = {}): Start => ({
  start,
  clamp: false,
  canFollow: false,
  ...more,
});

describe("where a read starts", () => {
  it("takes a seq num below the tail the node knows without asking for the tail", async () => {
    const { stream: s, asked } = stream(10);
    expect(await resolveStart(s, plan({ seqNum: 3 }))).toEqual({ position: 3, confirmed: -1 });
    expect(asked()).toBe(0);
  });

  it("asks the tail for a seq num at or past the tail it knows: past it is 416, unless clamped", async () => {
    const { stream: s, asked } = stream(6);
    expect(await resolveStart(s, plan({ seqNum: 8 })), "the tail now is 10").toEqual({ position: 8, confirmed: 10 });
    expect(asked()).toBe(1);
    await expect(resolveStart(s, plan({ seqNum: 11 }))).rejects.toMatchObject({
      status: 416,
      tail: { seqNum: 10, timestamp: 190 },
    });
    expect(await resolveStart(s, plan({ seqNum: 11 }, { clamp: true, canFollow: true }))).toEqual({
      position: 10,
      confirmed: 10,
    });
  });

  it("answers 416 at the tail only for a read that cannot wait there", async () => {
    const { stream: s } = stream();
    await expect(resolveStart(s, plan({ seqNum: 10 }))).rejects.toMatchObject({ status: 416 });
    await expect(resolveStart(s, plan({ seqNum: 11 }, { clamp: true }))).rejects.toMatchObject({ status: 416 });
    expect(await resolveStart(s, plan({ seqNum: 10 }, { canFollow: true }))).toEqual({ position: 10, confirmed: 10 });
  });

  it("starts at the first record at or after a timestamp; past the last one is 416 unless clamped", async () => {
    const { stream: s } = stream();
    expect(await resolveStart(s, plan({ timestamp: 135 }))).toEqual({ position: 4, confirmed: 10 });
    expect(await resolveStart(s, plan({ timestamp: 0 }))).toEqual({ position: 0, confirmed: 10 });
    expect(await resolveStart(s, plan({ timestamp: 190 }))).toEqual({ position: 9, confirmed: 10 });
    await expect(resolveStart(s, plan({ timestamp: 191 }))).rejects.toMatchObject({ status: 416 });
    expect(await resolveStart(s, plan({ timestamp: 191 }, { clamp: true, canFollow: true }))).toEqual({
      position: 10,
      confirmed: 10,
    });
    await expect(
      resolveStart(s, plan({ timestamp: 191 }, { clamp: true })),
      "clamped to the tail, and cannot wait there",
    ).rejects.toMatchObject({ status: 416 });
  });

  it("is no 416 for a timestamp that lands on the tail because its records were trimmed", async () => {
    const { stream: s } = stream(10, 10);
    expect(await resolveStart(s, plan({ timestamp: 150 }))).toEqual({ position: 10, confirmed: 10 });
  });

  it("counts a tail offset back from the tail now, never below 0; the default start is the tail", async () => {
    const { stream: s, asked } = stream();
    expect(await resolveStart(s, plan({ tailOffset: 3 }))).toEqual({ position: 7, confirmed: 10 });
    expect(await resolveStart(s, plan({ tailOffset: 30 }))).toEqual({ position: 0, confirmed: 10 });
    await expect(resolveStart(s, plan({ tailOffset: 0 }))).rejects.toMatchObject({ status: 416 });
    expect(await resolveStart(s, plan(undefined, { canFollow: true }))).toEqual({ position: 10, confirmed: 10 });
    await expect(resolveStart(s, plan(undefined))).rejects.toMatchObject({ status: 416 });
    expect(asked()).toBe(5);
  });
});
