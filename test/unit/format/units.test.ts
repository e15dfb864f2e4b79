/** Rates for humans never round a real rate to 0; list rows quote names that are not one word. */
import { describe, expect, it } from "vitest";
import { longRow, quoteName } from "../../../src/format/list-long.js";
import { humanByteRate, humanRate } from "../../../src/format/units.js";

describe("format > units", () => {
  it.each([
    [0, "0"],
    [1 / 3, "0.33"],
    [0.0004, "<0.001"],
    [4.56, "4.6"],
    [45.25, "45.3"],
    [999.6, "1000"],
    [Number.NaN, "0"],
  ])("humanRate(%d) = %s", (n, s) => {
    expect(humanRate(n)).toBe(s);
  });

  it("humanByteRate switches to binary units at 1 KiB/s", () => {
    expect(humanByteRate(0.9)).toBe("0.9 B/s");
    expect(humanByteRate(2048)).toBe("2.00 KiB/s");
  });
});

describe("format > list-long", () => {
  it.each([
    ["plain", "plain"],
    ["a/b-c.d", "a/b-c.d"],
    ["with space", '"with space"'],
    ["", '""'],
    ["tab\there", '"tab\\there"'],
    ['q"', '"q\\""'],
    ["zw\u200bj", '"zw\u200bj"'],
  ])("quoteName(%j)", (name, shown) => {
    expect(quoteName(name)).toBe(shown);
  });

  it("rows have fixed-width columns and the name last", () => {
    expect(longRow("2026-02-24T12:00:00.000Z", "active", "svc://b/x")).toBe(
      "2026-02-24T12:00:00.000Z  active    svc://b/x",
    );
    expect(longRow(undefined, "deleting", "b")).toBe(`-${" ".repeat(23)}  deleting  b`);
  });
});
