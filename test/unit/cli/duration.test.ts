import { describe, expect, it } from "vitest";
import { formatSeconds, formatSecondsInDays, parseDuration, parseDurationSecs } from "../../../src/format/duration.js";

describe("format > durations", () => {
  it.each([
    ["0", 0],
    ["30s", 30_000],
    ["5m", 300_000],
    ["2h 30m", 9_000_000],
    ["2h30m", 9_000_000],
    ["1d", 86_400_000],
    ["7days", 604_800_000],
    ["1w", 604_800_000],
    ["250ms", 250],
    ["1y", 31_557_600_000],
    ["1 hour", 3_600_000],
  ])("parses %j", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "abc", "10", "5 parsecs", "1d garbage", "-1s", "1.5h"])("rejects %j as a usage error", (text) => {
    expect(() => parseDuration(text)).toThrow(expect.objectContaining({ code: "usage" }));
  });

  it("requires whole seconds where seconds are stored", () => {
    expect(parseDurationSecs("7d")).toBe(604_800);
    expect(() => parseDurationSecs("1500ms")).toThrow(/whole number of seconds/);
  });

  it.each([
    [0, "0s"],
    [30, "30s"],
    [5400, "1h 30m"],
    [604_800, "1w"],
    [86_400, "1d"],
    [90_061, "1d 1h 1m 1s"],
    [31_557_600, "1y"],
  ])("formats %d seconds as %j and parses it back", (secs, text) => {
    expect(formatSeconds(secs)).toBe(text);
    expect(parseDurationSecs(text)).toBe(secs);
  });

  it.each([
    [0, "0s"],
    [30, "30s"],
    [5400, "1h 30m"],
    [604_800, "7d"],
    [1_209_600, "14d"],
    [129_600, "1d 12h"],
    [31_557_600, "365d 6h"],
    [5_184_000, "60d"],
  ])("formats %d seconds as S2 writes them, %j, and parses it back", (secs, text) => {
    expect(formatSecondsInDays(secs)).toBe(text);
    expect(parseDurationSecs(text)).toBe(secs);
  });
});
