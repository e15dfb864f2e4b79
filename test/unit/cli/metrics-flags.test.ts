import { describe, expect, it } from "vitest";
import { metricsQuery, parseMetricTime } from "../../../src/cli/commands/metrics/metric-flags.js";
import { BASIN_METRIC_SETS, STREAM_METRIC_SETS } from "../../../src/metric-types.js";

const now = Date.UTC(2026, 10, 25, 14, 0, 30);
const nowSec = now / 1000;

/** The message of the usage error `f` throws. */
function usage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect((e as { code?: string }).code).toBe("usage");
    return (e as Error).message;
  }
  throw new Error("no error");
}

describe("cli > metrics flags", () => {
  it("defaults to the last hour, ending now: start and end are always sent", () => {
    expect(metricsQuery({ metric: "append-ops" }, "basin", BASIN_METRIC_SETS, now)).toEqual({
      set: "append-ops",
      start: nowSec - 3600,
      end: nowSec,
      interval: undefined,
    });
    expect(
      metricsQuery({ metric: "append-ops", ago: "7d", interval: "day" }, "basin", BASIN_METRIC_SETS, now),
    ).toMatchObject({ start: nowSec - 7 * 86_400, interval: "day" });
    expect(
      metricsQuery({ metric: "read-ops", end: "1000", ago: "10s" }, "basin", BASIN_METRIC_SETS, now),
    ).toMatchObject({ start: 990, end: 1000 });
  });

  it("sends a storage set's one interval: hour for a basin, minute for a stream", () => {
    expect(metricsQuery({ metric: "storage" }, "basin", BASIN_METRIC_SETS, now).interval).toBe("hour");
    expect(metricsQuery({ metric: "storage", interval: "hour" }, "basin", BASIN_METRIC_SETS, now).interval).toBe(
      "hour",
    );
    expect(metricsQuery({ metric: "storage" }, "stream", STREAM_METRIC_SETS, now).interval).toBe("minute");
  });

  it("accepts a range of exactly 30 days, and an end a little ahead of now", () => {
    expect(metricsQuery({ metric: "storage", ago: "30d" }, "stream", STREAM_METRIC_SETS, now)).toMatchObject({
      start: nowSec - 30 * 86_400,
      end: nowSec,
    });
    expect(
      metricsQuery({ metric: "storage", end: String(nowSec + 300), ago: "1h" }, "stream", STREAM_METRIC_SETS, now).end,
    ).toBe(nowSec + 300);
  });

  it("reads --start and --end as unix seconds, RFC 3339, dates or a duration ago", () => {
    expect(parseMetricTime("1764079200", "--start", now)).toBe(1764079200);
    expect(parseMetricTime("2026-11-25T13:00:00Z", "--start", now)).toBe(Date.UTC(2026, 10, 25, 13) / 1000);
    expect(parseMetricTime("2026-11-25", "--start", now)).toBe(Date.UTC(2026, 10, 25) / 1000);
    expect(parseMetricTime("2h", "--start", now)).toBe(nowSec - 7200);
    expect(() => parseMetricTime("5000000000", "--end", now)).toThrow(/out of range/);
    expect(() => parseMetricTime("yesterday", "--end", now)).toThrow(/--end: invalid time/);
  });

  it("refuses a missing or foreign --metric and an inverted range, as usage errors", () => {
    expect(usage(() => metricsQuery({}, "basin", BASIN_METRIC_SETS, now))).toMatch(/^--metric is required: one of /);
    // A stream has one set, storage: it is the default.
    expect(metricsQuery({}, "stream", STREAM_METRIC_SETS, now).set).toBe("storage");
    expect(usage(() => metricsQuery({ metric: "append-ops" }, "stream", STREAM_METRIC_SETS, now))).toBe(
      '--metric "append-ops" is not one of the stream metric sets: storage',
    );
    expect(
      usage(() => metricsQuery({ metric: "storage", start: "2000", end: "1000" }, "stream", STREAM_METRIC_SETS, now)),
    ).toBe("--start must not be after --end");
    expect(usage(() => metricsQuery({ metric: "storage", ago: "1h 2x" }, "stream", STREAM_METRIC_SETS, now))).toMatch(
      /invalid duration/,
    );
  });

  it("refuses what the service would, before sending, naming the rule", () => {
    expect(usage(() => metricsQuery({ metric: "append-ops", ago: "31d" }, "basin", BASIN_METRIC_SETS, now))).toBe(
      "the range must be at most 30d: from --start to --end is 31d",
    );
    expect(
      usage(() =>
        metricsQuery(
          { metric: "append-ops", start: String(nowSec - 30 * 86_400 - 1) },
          "basin",
          BASIN_METRIC_SETS,
          now,
        ),
      ),
    ).toMatch(/^the range must be at most 30d/);
    expect(
      usage(() => metricsQuery({ metric: "append-ops", end: String(nowSec + 301) }, "basin", BASIN_METRIC_SETS, now)),
    ).toBe("--end must not be in the future: it is 5m 1s from now (at most 5m ahead, for clock differences)");
    expect(usage(() => metricsQuery({ metric: "storage", interval: "minute" }, "basin", BASIN_METRIC_SETS, now))).toBe(
      "--metric storage of a basin is by hour only: --interval hour, or leave --interval out",
    );
    expect(usage(() => metricsQuery({ metric: "storage", interval: "day" }, "stream", STREAM_METRIC_SETS, now))).toBe(
      "--metric storage of a stream is by minute only: --interval minute, or leave --interval out",
    );
  });
});
