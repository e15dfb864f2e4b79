/** The continuity check behind "records 3..7 … were trimmed or expired before they were read" (gaps.ts). */
import { describe, expect, it } from "vitest";
import { gapText, SeqContinuity } from "../../../src/cli/read/gaps.js";
import type { SequencedRecord } from "../../../src/types.js";

const recs = (...seqs: number[]): SequencedRecord[] =>
  seqs.map((seqNum) => ({ seqNum, timestamp: 0, headers: [], body: new Uint8Array(0) }));

describe("SeqContinuity", () => {
  it("without an expectation, the first batch sets one; holes after it are gaps", () => {
    const c = new SeqContinuity(undefined);
    expect(c.check(recs(5, 6))).toEqual([]);
    expect(c.check(recs(7))).toEqual([]);
    expect(c.check(recs(10, 11, 14))).toEqual([
      { from: 8, next: 10 },
      { from: 12, next: 14 },
    ]);
  });

  it("an expectation (a checkpoint) makes a later first record a gap", () => {
    expect(new SeqContinuity(3).check(recs(8, 9))).toEqual([{ from: 3, next: 8 }]);
    expect(new SeqContinuity(3).check(recs(3, 4))).toEqual([]);
    expect(new SeqContinuity(3).check([])).toEqual([]);
  });

  it("names one record or a range, both ends included", () => {
    expect(gapText({ from: 3, next: 8 }, "svc://b/s")).toBe(
      "records 3..7 of svc://b/s were trimmed or expired before they were read",
    );
    expect(gapText({ from: 3, next: 4 }, "svc://b/s")).toBe(
      "record 3 of svc://b/s was trimmed or expired before it was read",
    );
  });
});
