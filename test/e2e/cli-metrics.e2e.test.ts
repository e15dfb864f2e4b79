/**
 * `svc metrics` and `svc locations` as a child process against a real svc
 * lite: after known traffic (two appends of known metered bytes, one read), `--json` and
 * `--format csv` report exactly those operations and bytes; stream storage and account
 * active-basins; bad `--metric` and every rule of the service (range, future end, a storage
 * set's interval) are one-line usage errors (exit 2) before any request, and the help says
 * the rules; the locations round trip.
 * Under a pseudo-terminal the default output is a coloured chart with one bar per point; piped,
 * it is a plain table and never carries escape codes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunOptions, type RunResult, runSvc } from "../helpers/cli.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";

let lite: Lite;
let env: Record<string, string>;
const basin = uniqueBasin("cm");
const idle = uniqueBasin("ci");
const uri = `svc://${basin}/s`;
/** metered = 8 + body for records without headers (protocol.md §8.2). */
const appends = ["hello\nworld!\n", "\na\nbc\n"]; // 13 + 14, then 8 + 9 + 10
const APPENDED_BYTES = 27 + 27;
const APPENDED_RECORDS = 5;

type Point = [number, number];
type Metric = Record<string, { name: string; unit?: string; values: unknown[] }>;

function svc(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return runSvc(args, { ...opts, env: { ...env, ...opts.env } });
}

async function ok(args: string[], opts: RunOptions = {}): Promise<string> {
  const r = await svc(args, opts);
  expect(r.code, `svc ${args.join(" ")}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

async function json(args: string[]): Promise<Metric[]> {
  const doc = JSON.parse(await ok([...args, "--json"])) as { values: Metric[] };
  expect(Object.keys(doc)).toEqual(["values"]);
  return doc.values;
}

const sum = (points: unknown[]): number => (points as Point[]).reduce((n, [, v]) => n + v, 0);

beforeAll(async () => {
  lite = await startLite();
  env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
  await ok(["basin", "create", basin]);
  await ok(["basin", "create", idle]);
  await ok(["stream", "create", uri]);
  for (const input of appends) await ok(["append", uri], { stdin: input });
  const read = await ok(["read", uri, "--seq-num", "0", "-n", String(APPENDED_RECORDS)]);
  expect(read).toBe("hello\nworld!\n\na\nbc\n");
}, 60_000);

afterAll(async () => {
  expect(await lite?.stop()).toBe(0);
});

describe("svc metrics", () => {
  it("basin: --json shows exactly the appended and read operations and bytes", async () => {
    const [ops] = await json(["metrics", "basin", basin, "--metric", "append-ops"]);
    expect(ops!.accumulation).toMatchObject({ name: "append-ops", unit: "operations", interval: "minute" });
    expect(sum(ops!.accumulation!.values)).toBe(appends.length);
    const [bytes] = await json([
      "metrics",
      "basin",
      basin,
      "--metric",
      "append-throughput",
      "--ago",
      "2h",
      "--interval",
      "hour",
    ]);
    expect(bytes!.accumulation).toMatchObject({ name: "append-throughput", unit: "bytes", interval: "hour" });
    expect(sum(bytes!.accumulation!.values)).toBe(APPENDED_BYTES);
    const [read] = await json(["metrics", "basin", svcUri(basin), "--metric", "read-throughput"]);
    expect(sum(read!.accumulation!.values)).toBe(APPENDED_BYTES);
    const [readOps] = await json(["metrics", "basin", basin, "--metric", "read-ops"]);
    expect(sum(readOps!.accumulation!.values)).toBe(1);
    const perOp = await json(["metrics", "basin", basin, "--metric", "basin-ops"]);
    expect(Object.fromEntries(perOp.map((m) => [m.accumulation!.name, sum(m.accumulation!.values)]))).toMatchObject({
      append: 2,
      read: 1,
      "create-stream": 1,
    });
  });

  it("basin: --format csv has one exact row per point, RFC 3339 times", async () => {
    const end = Math.floor(Date.now() / 1000) + 60;
    const csv = await ok([
      "metrics",
      "basin",
      basin,
      "--metric",
      "append-throughput",
      "--start",
      String(end - 1800),
      "--end",
      String(end),
      "--format",
      "csv",
    ]);
    const [header, ...rows] = csv.trimEnd().split("\n");
    expect(header).toBe("metric,unit,kind,time,value");
    expect(rows.length).toBe(Math.floor(end / 60) - Math.floor((end - 1800) / 60) + 1);
    for (const r of rows) expect(r).toMatch(/^append-throughput,bytes,accumulation,\d{4}-\d\d-\d\dT\d\d:\d\d:00Z,\d+$/);
    expect(rows.reduce((n, r) => n + Number(r.split(",")[4]), 0)).toBe(APPENDED_BYTES);
    expect(rows.filter((r) => !r.endsWith(",0")).length).toBeGreaterThanOrEqual(1);
  });

  it("stream: storage is the stream's metered bytes; piped default output is a plain table", async () => {
    const [storage] = await json(["metrics", "stream", uri, "--metric", "storage"]);
    expect([storage!.gauge!.name, storage!.gauge!.unit]).toEqual(["storage", "bytes"]);
    expect((storage!.gauge!.values as Point[]).at(-1)![1]).toBe(APPENDED_BYTES);
    // Storage is a stream's only set: --metric may be left out.
    const table = (await ok(["metrics", "stream", uri])).trimEnd().split("\n");
    expect(table.slice(0, 2)).toEqual(["# storage (gauge, bytes)", "time\tvalue"]);
    expect(table.at(-1)).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:00Z\\t${APPENDED_BYTES}$`));
  });

  it("account: active-basins lists the basin with traffic, not the idle one", async () => {
    const [label] = await json(["metrics", "account", "--metric", "active-basins"]);
    expect(label!.label!.name).toBe("active-basins");
    expect(label!.label!.values).toContain(basin);
    expect(label!.label!.values).not.toContain(idle);
    const table = await ok(["metrics", "account", "--metric", "active-basins"]);
    expect(table.split("\n")[0]).toBe("# active-basins (label)");
    expect(table.split("\n")).toContain(basin);
  });

  it.each([
    [
      ["metrics", "basin", "BASIN", "--metric", "active-basins"],
      /^error: --metric "active-basins" is not one of the basin metric sets: storage, append-ops, /,
    ],
    [
      ["metrics", "stream", "URI", "--metric", "append-ops"],
      /^error: --metric "append-ops" is not one of the stream metric sets: storage$/,
    ],
    [
      ["metrics", "account", "--metric", "storage"],
      /^error: --metric "storage" is not one of the account metric sets: active-basins, account-ops$/,
    ],
    [["metrics", "basin", "BASIN"], /^error: --metric is required: one of storage, /],
    [
      ["metrics", "basin", "BASIN", "--metric", "storage", "--start", "2000", "--end", "1000"],
      /^error: --start must not be after --end$/,
    ],
    [["metrics", "basin", "BASIN", "--metric", "storage", "--ago", "soon"], /^error: invalid duration "soon"/],
    [
      ["metrics", "basin", "BASIN", "--metric", "append-ops", "--ago", "31d"],
      /^error: the range must be at most 30d: from --start to --end is 31d$/,
    ],
    [
      ["metrics", "account", "--metric", "account-ops", "--end", String(Math.floor(Date.now() / 1000) + 3600)],
      /^error: --end must not be in the future: it is .+ from now \(at most 5m ahead, for clock differences\)$/,
    ],
    [
      ["metrics", "basin", "BASIN", "--metric", "storage", "--interval", "minute"],
      /^error: --metric storage of a basin is by hour only: --interval hour, or leave --interval out$/,
    ],
    [
      ["metrics", "stream", "URI", "--metric", "storage", "--interval", "hour"],
      /^error: --metric storage of a stream is by minute only: --interval minute, or leave --interval out$/,
    ],
  ])("usage errors exit 2 with one error line and make no request: %j", async (args, message) => {
    const r = await svc(args.map((a) => (a === "BASIN" ? basin : a === "URI" ? uri : a)));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(message);
    expect(lines.filter((l) => l.startsWith("error:"))).toHaveLength(1);
  });

  it("--help states the service's rules", async () => {
    const help = await ok(["metrics", "basin", "--help"]);
    expect(help).toContain("Rules (as the service checks them; svc checks them before sending):");
    expect(help).toContain("--start must not be after --end");
    expect(help).toContain("the range is at most 30d");
    expect(help).toContain("--end is not in the future (at most 5m ahead, for clock differences)");
    expect(help).toContain("--metric storage is by hour only");
    expect(await ok(["metrics", "stream", "--help"])).toContain("--metric storage is by minute only");
    expect(await ok(["metrics", "account", "--help"])).not.toContain("--metric storage");
  });

  it("a basin that does not exist is 404 (exit 4)", async () => {
    const r = await svc(["metrics", "basin", uniqueBasin("no"), "--metric", "storage"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: Failed to get basin metrics svc:\/\/\S+: .*\(404 basin_not_found\)/);
  });
});

describe("svc locations", () => {
  it("list, get-default and set-default round trip", async () => {
    expect(await ok(["locations", "list"])).toBe("local (public)\n");
    expect(JSON.parse(await ok(["locations", "list", "--json"]))).toEqual([{ name: "local", is_private: false }]);
    expect(await ok(["locations", "get-default"])).toBe("local\n");
    const set = await svc(["locations", "set-default", "local"]);
    expect([set.code, set.stdout, set.stderr]).toEqual([0, "local\n", '✓ default location is now "local"\n']);
    expect(JSON.parse(await ok(["locations", "get-default", "--json"]))).toEqual({ name: "local", is_private: false });
    const other = await svc(["locations", "set-default", "mars"]);
    expect(other.code).not.toBe(0);
    expect(other.stdout).toBe("");
    expect(other.stderr).toMatch(/^error: Failed to set default location mars: .*\(422 invalid\)/);
    const bad = await svc(["locations", "set-default", "not a name"]);
    expect([bad.code, bad.stderr.split("\n")[0]]).toEqual([
      2,
      `error: invalid location name "not a name": 1 to 64 letters, digits, ':', '.' or '-'`,
    ]);
    expect(await ok(["locations", "get-default"])).toBe("local\n");
  });
});

describe.skipIf(!ptyAvailable)("svc metrics on a terminal", () => {
  const ESC = /\x1b\[[0-9;]*m/;

  it("draws a coloured chart: title, axis labels, one bar per point; piped, no escape codes", async () => {
    const end = Math.floor(Date.now() / 1000) + 60;
    const range = ["--start", String(end - 3600), "--end", String(end)];
    const [m] = await json(["metrics", "basin", basin, "--metric", "append-ops", ...range]);
    const points = m!.accumulation!.values as Point[];
    const r = await runSvcInPty(["metrics", "basin", basin, "--metric", "append-ops", ...range], env, { columns: 100 });
    expect(r.code, r.raw).toBe(0);
    expect(r.raw).toMatch(ESC);
    const screen = r.screen;
    expect(screen[0]).toBe("append-ops (operations per minute)");
    const rows = screen.filter((l) => /[┤│]/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows[0]).toMatch(new RegExp(`^${Math.max(...points.map(([, v]) => v))} ┤`));
    expect(rows.at(-1)).toMatch(/^0 ┤[▁▂▃▄▅▆▇█]+$/);
    const bars = rows.at(-1)!.replace(/^.*┤/, "");
    expect(bars.length).toBe(points.length);
    expect(screen.join("\n")).toContain("█");
    expect(screen.some((l) => /^ +└─+$/.test(l))).toBe(true);
    expect(screen.some((l) => /^ +\d{4}-\d\d-\d\d \d\d:\d\d +(\d{4}-\d\d-\d\d )?\d\d:\d\d UTC$/.test(l))).toBe(true);
    for (const l of screen) expect(l.length).toBeLessThanOrEqual(100);

    const piped = await svc(["metrics", "basin", basin, "--metric", "append-ops", ...range], {
      env: { FORCE_COLOR: undefined },
    });
    expect(piped.code).toBe(0);
    expect(piped.stdout).not.toMatch(ESC);
    expect(piped.stdout).not.toMatch(/[▁▂▃▄▅▆▇█]/);
    expect(piped.stdout.split("\n").slice(0, 2)).toEqual([
      "# append-ops (accumulation, operations per minute)",
      "time\tvalue",
    ]);
    const chartPiped = await svc(["metrics", "basin", basin, "--metric", "append-ops", ...range, "--format", "chart"], {
      env: { FORCE_COLOR: undefined },
    });
    expect(chartPiped.stdout).toMatch(/█/);
    expect(chartPiped.stdout).not.toMatch(ESC);
  }, 40_000);
});

function svcUri(b: string): string {
  return `svc://${b}`;
}
