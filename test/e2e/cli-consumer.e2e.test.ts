/**
 * Consumers (docs/consumers.md): read positions kept in the service by `svc read --consumer
 * NAME`, against lite, the built bin/svc as child processes with homes of their own (as on
 * different machines): resuming across homes with no gap and no duplicate, a reader killed
 * with SIGKILL resuming with duplicates only of what it printed after its last commit, two
 * readers of one name (the last to start holds it; the other stops, exit 5, and commits
 * nothing more), commits at every clean end, `svc consumer list|show|reset` and their bad
 * input, and position streams left alone by `apply --prune` and tail patterns.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunOptions, runSvc, SVC_BIN, tempHome } from "../helpers/cli.js";
import { cliEnv, type Lite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let lite: Lite;
let env: Record<string, string>;
const basin = `consumers-${process.pid}-${Date.now().toString(36)}`;
/** Two machines: each has a home (config, nothing shared) of its own. */
let homeA: string;
let homeB: string;

beforeAll(async () => {
  lite = await startLite();
  env = cliEnv(lite);
  homeA = tempHome();
  homeB = tempHome();
  const b = await svc(["basin", "create", basin]);
  expect(b.code, b.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await lite?.stop();
});

function svc(args: string[], opts: RunOptions = {}): ReturnType<typeof runSvc> {
  return runSvc(args, { home: homeA, timeoutMs: 60_000, ...opts, env: { ...env, ...opts.env } });
}

let n = 0;
/** A fresh stream holding `records` text records `<tag>-0`, `<tag>-1`, … */
async function stream(tag: string, records: number): Promise<string> {
  const uri = `svc://${basin}/${tag}-${n++}`;
  expect((await svc(["stream", "create", uri])).code).toBe(0);
  if (records > 0) await append(uri, tag, 0, records);
  return uri;
}

async function append(uri: string, tag: string, from: number, count: number): Promise<void> {
  const body = Array.from({ length: count }, (_, i) => `${tag}-${from + i}\n`).join("");
  const r = await svc(["append", uri, "-q"], { stdin: body });
  expect(r.code, r.stderr).toBe(0);
}

const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");

/** Waits for `what` to hold, checking every 50 ms; fails with `detail()` after `ms`. */
async function until(what: () => boolean, detail: () => string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error(`timed out waiting\n${detail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Reader {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A long-running `svc` (a follow read) in `home`, its output collected as it comes. */
function spawnSvc(args: string[], home: string): Reader {
  const child = spawn(process.execPath, [SVC_BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      FORCE_COLOR: "0",
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on("close", (code, signal) => r({ code, signal })),
  );
  return { child, out: () => out, err: () => err, exited };
}

interface Shown {
  next_seq_num: number;
  committed_at: number;
  committed_by: string;
  tail: number | null;
  lag: number | null;
}

async function show(uri: string, name: string): Promise<Shown> {
  const r = await svc(["consumer", "show", uri, name, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Shown;
}

/** The position stream of `name` of `uri`, record by record: commits (position, reader) and fences. */
async function history(uri: string, name: string): Promise<({ fence: string } | { next: number; reader: string })[]> {
  const stream = uri.slice(`svc://${basin}/`.length);
  const r = await svc([
    "read",
    `svc://${basin}/_svc-consumer/${stream}/${name}`,
    "--from-beginning",
    "-e",
    "--format",
    "json",
  ]);
  expect(r.code, r.stderr).toBe(0);
  return lines(r.stdout).map((l) => {
    const rec = JSON.parse(l) as { headers: [string, string][]; body: string };
    if (rec.headers.length === 1 && rec.headers[0]![0] === "") {
      expect(rec.headers[0]![1]).not.toBe("trim"); // few commits: never trimmed here
      return { fence: rec.body };
    }
    const c = JSON.parse(rec.body) as { next_seq_num: number; reader: string };
    return { next: c.next_seq_num, reader: c.reader };
  });
}

/** The error lines on stderr: exactly one `error:` line, and at most a `hint:` after it. */
function oneError(stderr: string): string {
  const errs = lines(stderr).filter((l) => l.startsWith("error:"));
  expect(errs, stderr).toHaveLength(1);
  return errs[0]!;
}

describe("svc read --consumer", () => {
  it("resumes across machines (two homes) exactly where the other stopped: no gap, no duplicate", async () => {
    const uri = await stream("m", 5);
    const a1 = await svc(["read", uri, "--consumer", "job", "--from-beginning", "-n", "3"], { home: homeA });
    expect(a1.code, a1.stderr).toBe(0);
    expect(a1.stderr).toContain(`consumer job: first read of ${uri}, starting at 0`);
    const b1 = await svc(["read", uri, "--consumer", "job", "-e"], { home: homeB });
    expect(b1.code, b1.stderr).toBe(0);
    expect(b1.stderr).toContain(`consumer job: resuming ${uri} at 3`);
    await append(uri, "m", 5, 2);
    // A start flag does not move a consumer that has a position: it applies to a first read only.
    const a2 = await svc(["read", uri, "--consumer", "job", "-e", "-s", "0"], { home: homeA });
    expect(a2.code, a2.stderr).toBe(0);
    expect(a2.stderr).toContain("start flags apply only to a consumer's first read");
    const b2 = await svc(["read", uri, "--consumer", "job", "-e"], { home: homeB });
    expect(b2).toMatchObject({ code: 0, stdout: "" });
    expect([...lines(a1.stdout), ...lines(b1.stdout), ...lines(a2.stdout)]).toEqual(
      Array.from({ length: 7 }, (_, i) => `m-${i}`),
    );
    expect(await show(uri, "job")).toMatchObject({ next_seq_num: 7, tail: 7, lag: 0 });
  });

  it("a first read starts where the read would (the tail by default), and that position is kept before anything is read", async () => {
    const uri = await stream("t", 3);
    const first = await svc(["read", uri, "--consumer", "late", "-e"]);
    expect(first).toMatchObject({ code: 0, stdout: "" });
    expect(first.stderr).toContain("starting at 3 (the tail");
    await append(uri, "t", 3, 2);
    // The next run, on another machine, gets what came after the first run's start.
    const next = await svc(["read", uri, "--consumer", "late", "-e"], { home: homeB });
    expect(lines(next.stdout)).toEqual(["t-3", "t-4"]);
    const dated = await svc(["read", uri, "--consumer", "from-two", "-s", "2", "-e"]);
    expect(lines(dated.stdout)).toEqual(["t-2", "t-3", "t-4"]);
  });

  it("commits at every clean end: -n, Ctrl-C, SIGTERM, and a closed stdout (| head -1)", async () => {
    const uri = await stream("c", 4);
    // A long --commit-every: only the commit at the end can account for each position below.
    const counted = await svc([
      "read",
      uri,
      "--consumer",
      "counted",
      "--from-beginning",
      "-n",
      "2",
      "--commit-every",
      "1h",
    ]);
    expect(counted.stdout).toBe("c-0\nc-1\n");
    expect((await show(uri, "counted")).next_seq_num).toBe(2);
    for (const [signal, code] of [
      ["SIGINT", 130],
      ["SIGTERM", 143],
    ] as const) {
      const name = `sig-${signal.toLowerCase()}`;
      const r = spawnSvc(["read", uri, "--consumer", name, "--from-beginning", "-f", "--commit-every", "1h"], homeA);
      await until(
        () => lines(r.out()).length === 4,
        () => r.err(),
      );
      r.child.kill(signal);
      expect((await r.exited).code).toBe(code);
      expect((await show(uri, name)).next_seq_num).toBe(4);
    }
    const piped = spawnSync(
      "bash",
      [
        "-o",
        "pipefail",
        "-c",
        `"${process.execPath}" "${SVC_BIN}" read '${uri}' --consumer piped --from-beginning -f --commit-every 1h | head -1`,
      ],
      { env: { ...process.env, ...env, HOME: homeA }, encoding: "utf8", timeout: 30_000 },
    );
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toBe("c-0\n");
    // Every record written to the pipe counts as printed (head took them from it).
    const p = (await show(uri, "piped")).next_seq_num;
    expect(p).toBeGreaterThanOrEqual(1);
    expect(p).toBeLessThanOrEqual(4);
  }, 60_000);

  it("a reader killed with SIGKILL mid-follow: the next resumes at its last commit, no gap, duplicates only of what it printed after that commit", async () => {
    const uri = await stream("k", 100);
    const r = spawnSvc(
      ["read", uri, "--consumer", "k", "--from-beginning", "-f", "--commit-every", "300ms", "--format", "json"],
      homeA,
    );
    const printed = (): number[] =>
      r
        .out()
        .split("\n")
        .slice(0, -1) // the last piece is unfinished (or empty)
        .map((l) => (JSON.parse(l) as { seq_num: number }).seq_num);
    await until(
      () => printed().length === 100,
      () => r.err(),
    );
    // A commit of all hundred, then more records while it follows, and the kill as they come.
    let committed = 0;
    for (let tries = 0; committed < 100 && tries < 200; tries++) {
      committed = (await show(uri, "k")).next_seq_num;
      if (committed < 100) await new Promise((res) => setTimeout(res, 50));
    }
    expect(committed).toBe(100);
    await append(uri, "k", 100, 60);
    await until(
      () => printed().length >= 130,
      () => r.err(),
    );
    r.child.kill("SIGKILL");
    expect((await r.exited).signal).toBe("SIGKILL");
    const first = printed();
    const last = (await show(uri, "k")).next_seq_num;
    expect(last).toBeGreaterThanOrEqual(100);
    expect(last).toBeLessThanOrEqual(first.at(-1)! + 1);
    await append(uri, "k", 160, 20);
    const again = await svc(["read", uri, "--consumer", "k", "-e", "--format", "json"], { home: homeB });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`resuming ${uri} at ${last}`);
    const second = lines(again.stdout).map((l) => (JSON.parse(l) as { seq_num: number }).seq_num);
    // No gap: the second reader starts at the commit and reads on to the end, in order.
    expect(second).toEqual(Array.from({ length: 180 - last }, (_, i) => last + i));
    expect(new Set([...first, ...second]).size).toBe(180);
    // Duplicates: only records the killed reader printed after its last commit.
    const dups = second.filter((s) => first.includes(s));
    expect(dups.every((s) => s >= last)).toBe(true);
    expect(dups).toEqual(first.filter((s) => s >= last));
  }, 60_000);

  it("two readers of one name: the last to start holds it; the other stops with exit 5 and commits nothing more", async () => {
    const uri = await stream("two", 10);
    const a = spawnSvc(["read", uri, "--consumer", "pair", "--from-beginning", "-f", "--commit-every", "100ms"], homeA);
    await until(
      () => lines(a.out()).length === 10,
      () => a.err(),
    );
    let committed = 0;
    for (let tries = 0; committed < 10 && tries < 200; tries++) {
      committed = (await show(uri, "pair")).next_seq_num;
      if (committed < 10) await new Promise((res) => setTimeout(res, 50));
    }
    expect(committed).toBe(10);
    const b = spawnSvc(["read", uri, "--consumer", "pair", "-f", "--commit-every", "100ms"], homeB);
    await until(
      () => b.err().includes(`consumer pair: resuming ${uri} at 10`),
      () => b.err(),
    );
    // A, idle, finds out at its next check that the name is no longer its own.
    const aEnd = await a.exited;
    expect(aEnd.code, a.err()).toBe(5);
    const error = oneError(a.err());
    expect(error).toBe(
      `error: consumer pair of ${uri} was taken over by another reader (or reset), so this reader stopped; its last commit was 10 (consumer_taken_over)`,
    );
    expect(a.err()).toContain("hint: at most one reader commits under a name");
    await append(uri, "two", 10, 3);
    await until(
      () => lines(b.out()).length === 3,
      () => b.err(),
    );
    expect(lines(b.out())).toEqual(["two-10", "two-11", "two-12"]);
    b.child.kill("SIGINT");
    expect((await b.exited).code).toBe(130);
    const s = await show(uri, "pair");
    expect(s.next_seq_num).toBe(13);
    expect(s.committed_by.endsWith(`:${b.child.pid}`)).toBe(true);
    // After B's fence, every commit is B's: A never committed once fenced out.
    const h = await history(uri, "pair");
    const bFence = h.findLastIndex((r) => "fence" in r);
    const after = h.slice(bFence + 1);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => "next" in r && r.reader.endsWith(`:${b.child.pid}`))).toBe(true);
    expect(h.slice(0, bFence).some((r) => "next" in r && r.reader.endsWith(`:${a.child.pid}`))).toBe(true);
  }, 60_000);
});

describe("svc consumer list, show, reset", () => {
  it("list and show: each consumer's position, lag and commit; --json and --ndjson", async () => {
    const uri = await stream("ls", 5);
    expect((await svc(["read", uri, "--consumer", "alpha", "--from-beginning", "-n", "2"])).code).toBe(0);
    expect((await svc(["read", uri, "--consumer", "beta", "-e"])).code).toBe(0);
    const text = await svc(["consumer", "list", uri]);
    expect(text.code, text.stderr).toBe(0);
    const rows = lines(text.stdout).map((l) => l.split(/\s+/));
    expect(rows[0]).toEqual(["STREAM", "CONSUMER", "POSITION", "LAG", "COMMITTED"]);
    expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
      [uri, "alpha", "2", "3"],
      [uri, "beta", "5", "0"],
    ]);
    const json = JSON.parse((await svc(["consumer", "list", uri, "--json"])).stdout) as Shown[];
    expect(json.map((r) => [r.next_seq_num, r.lag])).toEqual([
      [2, 3],
      [5, 0],
    ]);
    const nd = lines((await svc(["consumer", "list", uri, "--ndjson"])).stdout);
    expect(nd.map((l) => (JSON.parse(l) as { consumer: string }).consumer)).toEqual(["alpha", "beta"]);
    const all = JSON.parse((await svc(["consumer", "list", basin, "--json"])).stdout) as { uri: string }[];
    expect(all.filter((r) => r.uri === uri)).toHaveLength(2);
    const alpha = await show(uri, "alpha");
    expect(alpha).toMatchObject({ next_seq_num: 2, tail: 5, lag: 3 });
    expect(Math.abs(alpha.committed_at - Date.now())).toBeLessThan(60_000);
    const shown = await svc(["consumer", "show", uri, "alpha"]);
    expect(shown.stdout).toMatch(/^position +2 \(the next sequence number it reads\)$/m);
    expect(shown.stdout).toMatch(/^lag +3 records$/m);
    const none = await svc(["consumer", "list", await stream("empty", 0)]);
    expect(none).toMatchObject({ code: 0, stdout: "" });
    expect(none.stderr).toContain("no consumers of");
  });

  it("reset --to-tail, --to-start, --to N: the next read goes on from there; a reader running under the name stops", async () => {
    const uri = await stream("rs", 5);
    expect((await svc(["read", uri, "--consumer", "alpha", "--from-beginning", "-n", "2"])).code).toBe(0);
    const tail = await svc(["consumer", "reset", uri, "alpha", "--to-tail"]);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stderr).toContain(`consumer alpha of ${uri} moved from 2 to 5`);
    expect((await show(uri, "alpha")).next_seq_num).toBe(5);
    expect((await svc(["consumer", "reset", uri, "alpha", "--to-start"])).code).toBe(0);
    expect((await show(uri, "alpha")).next_seq_num).toBe(0);
    const to = await svc(["consumer", "reset", uri, "alpha", "--to", "3", "--json"]);
    expect(JSON.parse(to.stdout)).toEqual({ uri, consumer: "alpha", from: 0, to: 3 });
    expect(lines((await svc(["read", uri, "--consumer", "alpha", "-e"])).stdout)).toEqual(["rs-3", "rs-4"]);

    const r = spawnSvc(["read", uri, "--consumer", "live", "-f", "--commit-every", "100ms"], homeB);
    await until(
      () => r.err().includes("consumer live: first read"),
      () => r.err(),
    );
    expect((await svc(["consumer", "reset", uri, "live", "--to-start"])).code).toBe(0);
    expect((await r.exited).code).toBe(5);
    expect(oneError(r.err())).toContain("was taken over by another reader (or reset)");
    expect((await show(uri, "live")).next_seq_num).toBe(0);
  }, 60_000);

  it("bad input: one error line and the documented exit code", async () => {
    const uri = await stream("bad", 3);
    expect((await svc(["read", uri, "--consumer", "ok", "--from-beginning", "-e"])).code).toBe(0);
    const cases: [string[], number, RegExp][] = [
      [["read", uri, "--consumer", "a/b", "-e"], 2, /invalid consumer name "a\/b"/],
      [["read", uri, "--consumer", "-x", "-e"], 2, /./],
      [["consumer", "show", uri, "no.such"], 4, /has no consumer "no\.such"/],
      [["consumer", "show", uri, "bad name"], 2, /invalid consumer name/],
      [["consumer", "reset", uri, "no-such", "--to-tail"], 4, /has no consumer/],
      [["consumer", "reset", uri, "ok", "--to", "9"], 5, /--to 9 is beyond the stream's tail \(3\)/],
      [["consumer", "reset", uri, "ok", "--to", "abc"], 2, /--to/],
      [["consumer", "reset", uri, "ok"], 2, /give exactly one of --to SEQ, --to-tail or --to-start/],
      [["consumer", "reset", uri, "ok", "--to", "1", "--to-tail"], 2, /give exactly one/],
      [["consumer", "show", `svc://${basin}/no-such-stream`, "ok"], 4, /has no consumer/],
      [["read", uri, "--consumer", "ok", "--checkpoint", "f"], 2, /--consumer and --checkpoint/],
      [["read", `svc://${basin}/_svc-consumer/x/y`, "--consumer", "ok"], 2, /has no consumers/],
    ];
    for (const [args, code, message] of cases) {
      const r = await svc(args);
      expect([args.join(" "), r.code], r.stderr).toEqual([args.join(" "), code]);
      expect(oneError(r.stderr)).toMatch(message);
      expect(r.stdout).toBe("");
    }
    const json = await svc(["consumer", "show", uri, "nobody", "--json"]);
    const doc = JSON.parse(lines(json.stderr).at(-1)!) as { error: { code: string; exit_code: number } };
    expect(doc.error).toMatchObject({ code: "consumer_not_found", exit_code: 4 });
    expect((await show(uri, "ok")).next_seq_num).toBe(3); // nothing above moved it
  });

  it("position streams are svc's own: apply --prune and --export leave them out, tail patterns skip them", async () => {
    const other = `${basin}-p`;
    expect((await svc(["basin", "create", other])).code).toBe(0);
    const uri = `svc://${other}/data`;
    expect((await svc(["stream", "create", uri])).code).toBe(0);
    await append(uri, "p", 0, 2);
    expect((await svc(["read", uri, "--consumer", "keep", "--from-beginning", "-e"])).code).toBe(0);
    const spec = join(scratchDir("svc-consumer-spec-"), "spec.json");
    writeFileSync(spec, JSON.stringify({ basins: [{ name: other, streams: [{ name: "data" }] }] }));
    const plan = await svc(["apply", "-f", spec, "--prune", "--dry-run"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain("_svc-consumer");
    expect((await svc(["apply", "-f", spec, "--prune", "--yes"])).code).toBe(0);
    expect((await show(uri, "keep")).next_seq_num).toBe(2);
    const exported = await svc(["apply", "--export", other]);
    expect(exported.stdout).not.toContain("_svc-consumer");
    const tail = await svc(["tail", `svc://${other}/*`, "-n", "5"]);
    expect(tail.code, tail.stderr).toBe(0);
    expect(lines(tail.stdout).sort()).toEqual(["[data] p-0", "[data] p-1"]);
  });
});
