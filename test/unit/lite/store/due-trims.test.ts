/**
 * When the sweep carries a trim out (src/lite/store/due-trims.ts, protocol.md §7.7): a trim
 * point is due one period after it was first seen, never sooner; a later, higher point waits
 * its own period without holding back the earlier one; what is removed or no longer seen is
 * forgotten.
 */
import { describe, expect, it } from "vitest";
import { DueTrims } from "../../../../src/lite/store/due-trims.js";

function trims(delayMs = 1000) {
  let now = 0;
  const t = new DueTrims(delayMs, () => now);
  return { t, at: (ms: number) => (now = ms) };
}

describe("when trims are due", () => {
  it("a trim point is due one period after it was first seen, not before", () => {
    const { t, at } = trims();
    expect(t.due(1, 5, 0)).toBe(0);
    expect(t.nextDueIn()).toBe(1000);
    at(999);
    expect(t.due(1, 5, 0), "seen again: still counted from the first time").toBe(0);
    expect(t.nextDueIn()).toBe(1);
    at(1000);
    expect(t.due(1, 5, 0)).toBe(5);
    expect(t.due(1, 5, 5), "carried out: nothing waits").toBe(5);
    expect(t.nextDueIn()).toBeUndefined();
  });

  it("trims that keep coming do not hold back the earlier ones", () => {
    const { t, at } = trims();
    t.due(1, 5, 0);
    at(600);
    expect(t.due(1, 9, 0)).toBe(0);
    at(1000);
    expect(t.due(1, 12, 0), "5 is due; 9 and 12 wait").toBe(5);
    at(1600);
    expect(t.due(1, 12, 5)).toBe(9);
    at(2000);
    expect(t.due(1, 12, 9)).toBe(12);
  });

  it("nothing is due at or below the removal mark, and streams not seen are forgotten", () => {
    const { t, at } = trims();
    expect(t.due(1, 3, 3)).toBe(3);
    t.due(2, 7, 0);
    t.due(3, 4, 0);
    expect(t.nextDueIn()).toBe(1000);
    t.keepOnly(new Set([3]));
    at(1000);
    expect(t.due(2, 7, 0), "forgotten: seen anew").toBe(0);
    expect(t.due(3, 4, 0)).toBe(4);
  });
});
