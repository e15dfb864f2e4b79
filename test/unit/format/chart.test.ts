import { describe, expect, it } from "vitest";
import {
  BLOCKS,
  type ChartSeries,
  fitBars,
  levels,
  renderChart,
  timeLabel,
  valueLabel,
} from "../../../src/format/chart.js";
import { metricsCsv, metricsTable, metricsText, rfc3339Secs } from "../../../src/format/metric-output.js";
import type { Metric } from "../../../src/metric-types.js";

const T0 = Date.UTC(2026, 10, 25, 13, 0) / 1000;
const series = (values: number[], extra: Partial<ChartSeries> = {}): ChartSeries => ({
  name: "append-ops",
  unit: "operations",
  interval: "minute",
  points: values.map((v, i) => [T0 + 60 * i, v]),
  ...extra,
});
/** The bars of a rendered chart row (after the `┤`/`│` axis). */
const bars = (line: string): string => line.replace(/^.*?[┤│]/, "");

describe("format > chart", () => {
  it("maps the largest value to █, zero to the lowest block, one bar per point", () => {
    const lines = renderChart(series([0, 4, 2, 1, 0]), { width: 80 });
    expect(lines[0]).toBe("append-ops (operations per minute)");
    expect(bars(lines[1]!)).toBe("▁█▄▂▁");
    expect(lines[1]).toMatch(/^4 ┤/);
    expect(lines[2]).toBe("  └─────");
    expect(lines[3]).toBe("   2026-11-25 13:00  13:04 UTC");
  });

  it("spreads values over 8 levels per row, labels max and min with units", () => {
    const lines = renderChart(series([0, 1024, 2048], { name: "storage", unit: "bytes", interval: undefined }), {
      width: 80,
      height: 2,
    });
    expect(lines[0]).toBe("storage (bytes)");
    expect(lines[1]).toBe("2.00 KiB ┤  █");
    expect(lines[2]).toBe("     0 B ┤▁██");
    expect(levels([0, 1, 8, 16], 2)).toEqual([0, 1, 8, 16]);
    expect(levels([0, 0], 3)).toEqual([0, 0]);
    // Anything above zero shows at least the lowest block.
    expect(levels([1, 1000], 1)).toEqual([1, 8]);
    expect(BLOCKS.join("")).toBe("▁▂▃▄▅▆▇█");
  });

  it("respects the width: more points than columns fold into bars of the largest", () => {
    const values = Array.from({ length: 61 }, (_, i) => (i === 30 ? 9 : i % 2));
    for (const width of [20, 40, 80]) {
      const lines = renderChart(series(values), { width, height: 3 });
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
      const row = bars(lines[3]!);
      expect(row.length).toBe(
        fitBars(
          values.map((v, i) => [i, v]),
          width - 3,
        ).values.length,
      );
      expect(row.length).toBeLessThanOrEqual(width - 3);
      expect(bars(lines[1]!)).toContain("█");
    }
    expect(renderChart(series(values), { width: 40 }).at(-1)).toBe("   each bar: the largest of 2 minutes");
    expect(renderChart(series(values), { width: 80 })).toHaveLength(4);
    expect(
      fitBars(
        [
          [0, 1],
          [1, 5],
          [2, 2],
          [3, 0],
          [4, 7],
        ],
        2,
      ),
    ).toEqual({ values: [5, 7], perBar: 3 });
  });

  it("colours through the paint it is given; nothing else", () => {
    const tag = (t: string) => (s: string) => `<${t}>${s}</${t}>`;
    const lines = renderChart(series([0, 3]), {
      width: 40,
      paint: { title: tag("t"), bar: tag("b"), zero: tag("z"), axis: tag("a") },
    });
    expect(lines[0]).toBe("<t>append-ops (operations per minute)</t>");
    expect(lines[1]).toBe("<a>3 ┤</a><z>▁</z><b>█</b>");
    // A colour is switched once per run of like bars, not once per bar.
    expect(renderChart(series([0, 0, 3, 3, 0]), { width: 40, paint: { zero: tag("z"), bar: tag("b") } })[1]).toBe(
      "3 ┤<z>▁▁</z><b>██</b><z>▁</z>",
    );
  });

  it("labels", () => {
    expect(valueLabel(1536, "bytes")).toBe("1.50 KiB");
    expect(valueLabel(1234567, "operations")).toBe("1,234,567");
    expect(timeLabel(T0, "day")).toBe("2026-11-25");
    expect(timeLabel(T0 + 90, "minute", true)).toBe("13:01");
    expect(renderChart(series([]), { width: 40 })).toEqual([
      "append-ops (operations per minute)",
      "  (no data in this range)",
    ]);
  });
});

describe("format > metric-output", () => {
  const values: Metric[] = [
    {
      accumulation: {
        name: "append-throughput",
        unit: "bytes",
        interval: "minute",
        values: [
          [T0, 0],
          [T0 + 60, 9007199254740991],
        ],
      },
    },
    { gauge: { name: "storage", unit: "bytes", values: [[T0, 166]] } },
    { scalar: { name: "total", unit: "operations", value: 0.5 } },
    { label: { name: "active-basins", values: ["a,b", "c"] } },
  ];

  it("CSV: metric,unit,kind,time,value with RFC 3339 times and exact values", () => {
    expect(rfc3339Secs(T0)).toBe("2026-11-25T13:00:00Z");
    expect(metricsCsv(values)).toEqual([
      "metric,unit,kind,time,value",
      "append-throughput,bytes,accumulation,2026-11-25T13:00:00Z,0",
      "append-throughput,bytes,accumulation,2026-11-25T13:01:00Z,9007199254740991",
      "storage,bytes,gauge,2026-11-25T13:00:00Z,166",
      "total,operations,scalar,,0.5",
      'active-basins,,label,,"a,b"',
      "active-basins,,label,,c",
    ]);
  });

  it("table: a header per series, time<TAB>value lines", () => {
    expect(metricsTable(values)).toEqual([
      "# append-throughput (accumulation, bytes per minute)",
      "time\tvalue",
      "2026-11-25T13:00:00Z\t0",
      "2026-11-25T13:01:00Z\t9007199254740991",
      "",
      "# storage (gauge, bytes)",
      "time\tvalue",
      "2026-11-25T13:00:00Z\t166",
      "",
      "total: 0.5 operations",
      "",
      "# active-basins (label)",
      "a,b",
      "c",
    ]);
  });

  it("text: a chart per series, scalars as name: value unit, labels as a list", () => {
    const text = metricsText(values, { width: 60, height: 2 });
    expect(text[0]).toBe("append-throughput (bytes per minute)");
    expect(text).toContain("total: 0.5 operations");
    expect(text.slice(-3)).toEqual(["active-basins (2)", "  a,b", "  c"]);
    expect(metricsText([], { width: 60, height: 2 })).toEqual(["(no metrics)"]);
  });
});
