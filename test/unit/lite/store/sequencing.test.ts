/**
 * The pure sequencing rules (src/lite/store/sequencing.ts, protocol.md §8.3-§8.5), which both a
 * local stream applies and a shared stream plans with (the database applies the same rules).
 */
import { describe, expect, it } from "vitest";
import { FencingTokenMismatchError, SeqNumMismatchError } from "../../../../src/errors.js";
import type { StreamStateRecord } from "../../../../src/lite/storage/types.js";
import { checkConditions, checkTimestamps, commandsOf, sequence } from "../../../../src/lite/store/sequencing.js";
import { resolveStreamConfig } from "../../../../src/lite/store/stream-config.js";
import { fenceRecord, trimRecord } from "../../../../src/rules/commands.js";

const enc = new TextEncoder();
const rec = (body: string, timestamp?: number) => ({
  headers: [],
  body: enc.encode(body),
  ...(timestamp === undefined ? {} : { timestamp }),
});
const state = (over: Partial<StreamStateRecord> = {}): StreamStateRecord => ({
  nextSeq: 10,
  lastTimestamp: 500,
  fencingToken: "t",
  trimPoint: 0,
  lastArrival: 400,
  ...over,
});
const config = (mode: "client-prefer" | "client-require" | "arrival" = "client-prefer", uncapped = false) =>
  resolveStreamConfig({ timestamping: { mode, uncapped } }, null);

describe("checkConditions (§8.3)", () => {
  it("checks the fencing token first, then match_seq_num, only when the input carries them", () => {
    expect(checkConditions(state(), { records: [rec("a")] })).toBeUndefined();
    expect(checkConditions(state(), { records: [rec("a")], fencingToken: "t", matchSeqNum: 10 })).toBeUndefined();
    expect(checkConditions(state(), { records: [rec("a")], fencingToken: "x", matchSeqNum: 3 })).toEqual(
      new FencingTokenMismatchError("t"),
    );
    expect(checkConditions(state(), { records: [rec("a")], matchSeqNum: 3 })).toEqual(new SeqNumMismatchError(10));
  });
});

describe("checkTimestamps (§8.4)", () => {
  it("refuses a batch with a record without a timestamp only in client-require", () => {
    expect(checkTimestamps(config("client-require"), { records: [rec("a", 1), rec("b")] })?.code).toBe("invalid");
    expect(checkTimestamps(config("client-require"), { records: [rec("a", 1)] })).toBeUndefined();
    expect(checkTimestamps(config("client-prefer"), { records: [rec("a")] })).toBeUndefined();
  });
});

describe("sequence (§8.4, §8.5)", () => {
  it("assigns consecutive seq nums from the next one", () => {
    const out = sequence(state(), config(), { records: [rec("a"), rec("b"), rec("c")] }, 1000);
    expect(out.records.map((r) => r.seqNum)).toEqual([10, 11, 12]);
    expect(out.state.nextSeq).toBe(13);
    expect(out.state.lastArrival).toBe(1000);
  });

  it("takes client timestamps, caps them at now unless uncapped, and never goes below the last", () => {
    const capped = sequence(
      state(),
      config(),
      { records: [rec("a", 700), rec("b", 5000), rec("c", 100), rec("d")] },
      1000,
    );
    expect(capped.records.map((r) => r.timestamp)).toEqual([700, 1000, 1000, 1000]);
    const uncapped = sequence(state(), config("client-prefer", true), { records: [rec("a", 5000)] }, 1000);
    expect(uncapped.records[0]!.timestamp).toBe(5000);
    const low = sequence(state({ lastTimestamp: 900 }), config(), { records: [rec("a", 100)] }, 1000);
    expect(low.records[0]!.timestamp).toBe(900);
    const arrival = sequence(state(), config("arrival"), { records: [rec("a", 600)] }, 1000);
    expect(arrival.records[0]!.timestamp).toBe(1000);
    expect(capped.state.lastTimestamp).toBe(1000);
  });

  it("applies fence and trim commands in order; a trim never past its own position + 1, never backwards", () => {
    const out = sequence(
      state({ trimPoint: 5 }),
      config(),
      { records: [rec("a"), fenceRecord("new"), trimRecord(100), trimRecord(2)] },
      1000,
    );
    expect(out.state.fencingToken).toBe("new");
    expect(out.state.trimPoint).toBe(13); // the first trim's own seq num is 12
    expect(commandsOf({ records: [rec("a"), fenceRecord("new"), trimRecord(100)] })).toEqual([
      { index: 1, fence: "new" },
      { index: 2, trim: 100 },
    ]);
  });
});
