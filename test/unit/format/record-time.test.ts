import { describe, expect, it } from "vitest";
import { parseRange } from "../../../src/format/record-range.js";
import { formatIso, formatRelative, parseTimePoint } from "../../../src/format/record-time.js";

const now = Date.UTC(2026, 1, 18, 12, 0, 0);

describe("format > record-time", () => {
  it("parses ms, RFC 3339, dates, now and durations", () => {
    expect(parseTimePoint("1771390606217", "--timestamp")).toBe(1771390606217);
    expect(parseTimePoint("2026-02-18T04:56:46.217Z", "--timestamp")).toBe(1771390606217);
    expect(parseTimePoint("2026-02-18T06:56:46.217+02:00", "--timestamp")).toBe(1771390606217);
    expect(parseTimePoint("2026-02-18", "--timestamp")).toBe(Date.UTC(2026, 1, 18));
    expect(parseTimePoint("now", "--until", { now })).toBe(now);
    expect(parseTimePoint("1h", "--ago", { now, duration: "ago" })).toBe(now - 3_600_000);
    expect(parseTimePoint("5m", "--until", { now, duration: "ahead" })).toBe(now + 300_000);
  });

  it("rejects nonsense with the flag name", () => {
    expect(() => parseTimePoint("2026-02-30", "--timestamp")).toThrow(/--timestamp: invalid time/);
    expect(() => parseTimePoint("1h", "--timestamp")).toThrow(/--timestamp/);
    expect(() => parseTimePoint("yesterday", "--until", { duration: "ahead" })).toThrow(/duration from now/);
    expect(() => parseTimePoint("99999999999999999999", "--timestamp")).toThrow(
      /99999999999999999999 is above 9007199254740991/,
    );
  });

  it("formats", () => {
    expect(formatIso(1771390606217)).toBe("2026-02-18T04:56:46.217Z");
    expect(formatIso(Number.MAX_SAFE_INTEGER)).toBe(String(Number.MAX_SAFE_INTEGER));
    expect(formatRelative(now - 5000, now)).toBe("5s ago");
    expect(formatRelative(now + 120_000, now)).toBe("in 2m");
  });

  it("parses ranges", () => {
    expect(parseRange("100:200", now)).toEqual({ kind: "seq", start: 100, end: 200 });
    expect(parseRange("100:", now)).toEqual({ kind: "seq", start: 100 });
    expect(parseRange(":5", now)).toEqual({ kind: "seq", start: 0, end: 5 });
    expect(parseRange("@-1h:now", now)).toEqual({ kind: "time", start: now - 3_600_000, end: now });
    expect(parseRange("@2026-01-01:1h", now)).toEqual({
      kind: "time",
      start: Date.UTC(2026, 0, 1),
      end: Date.UTC(2026, 0, 1, 1),
    });
    expect(parseRange("@2026-01-01T10:00:00Z:@2026-01-01T11:00:00Z", now)).toEqual({
      kind: "time",
      start: Date.UTC(2026, 0, 1, 10),
      end: Date.UTC(2026, 0, 1, 11),
    });
    expect(parseRange("@2026-01-01T10:00:00Z", now)).toEqual({ kind: "time", start: Date.UTC(2026, 0, 1, 10) });
    expect(() => parseRange("5:3", now)).toThrow(/after the start/);
    expect(() => parseRange("a:b", now)).toThrow(/not a sequence number/);
  });
});
