/**
 * `svc tail` of several streams against lite, the built bin/svc as a child process: URIs and
 * `svc://basin/prefix*` patterns, labels and JSON fields, order per stream, a checkpoint per
 * stream, new streams picked up and deleted ones dropped while following, Ctrl-C, and labels
 * coloured on a terminal.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";
import { scratchDir } from "../helpers/scratch.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let group = 0;

/** Streams `<prefix>-a`, `<prefix>-b`… each holding `<name>:0`, `<name>:1`…, and the pattern. */
async function streams(names: string[], records = 3): Promise<{ prefix: string; uris: string[]; pattern: string }> {
  const prefix = `g${group++}`;
  const uris: string[] = [];
  for (const n of names) {
    const uri = `svc://${d.basin}/${prefix}-${n}`;
    expect((await d.svc(["stream", "create", uri])).code).toBe(0);
    const body = Array.from({ length: records }, (_, i) => `${n}:${i}\n`).join("");
    if (records > 0) expect((await d.svc(["append", uri], { stdin: body })).code).toBe(0);
    uris.push(uri);
  }
  return { prefix, uris, pattern: `svc://${d.basin}/${prefix}-*` };
}

describe("svc tail of several streams", () => {
  it("URIs: the last N of each, labelled by stream name, each stream in order", async () => {
    const { prefix, uris } = await streams(["a", "b"]);
    const r = await d.svc(["tail", "-n", "2", ...uris]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect([...lines].sort()).toEqual([
      `[${prefix}-a] a:1`,
      `[${prefix}-a] a:2`,
      `[${prefix}-b] b:1`,
      `[${prefix}-b] b:2`,
    ]);
    for (const n of ["a", "b"])
      expect(lines.filter((l) => l.startsWith(`[${prefix}-${n}]`))).toEqual([
        `[${prefix}-${n}] ${n}:1`,
        `[${prefix}-${n}] ${n}:2`,
      ]);
  });

  it("a pattern: every matching stream and no other; JSON gets basin and stream fields; --no-prefix drops them", async () => {
    const { prefix, pattern } = await streams(["a", "b", "c"], 1);
    await streams(["x"], 1); // another group: not matched
    const r = await d.svc(["tail", pattern, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const docs = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(docs.map((j) => j.stream).sort()).toEqual([`${prefix}-a`, `${prefix}-b`, `${prefix}-c`]);
    for (const j of docs) expect(Object.keys(j).slice(0, 3)).toEqual(["basin", "stream", "seq_num"]);
    expect(docs.every((j) => j.basin === d.basin && j.body === `${(j.stream as string).slice(-1)}:0`)).toBe(true);
    const bare = await d.svc(["tail", pattern, "--no-prefix"]);
    expect(bare.stdout.trimEnd().split("\n").sort()).toEqual(["a:0", "b:0", "c:0"]);
  });

  it("a record of several lines gets the label on each line; streams of two basins are labelled basin/stream", async () => {
    const { prefix, uris } = await streams(["a"], 0);
    expect(
      (await d.svc(["append", uris[0]!, "--format", "json"], { stdin: `${JSON.stringify({ body: "one\ntwo" })}\n` }))
        .code,
    ).toBe(0);
    const other = `${d.basin}-two`;
    expect((await d.svc(["basin", "create", other])).code).toBe(0);
    const elsewhere = `svc://${other}/${prefix}-a`;
    expect((await d.svc(["stream", "create", elsewhere])).code).toBe(0);
    expect((await d.svc(["append", elsewhere], { stdin: "there\n" })).code).toBe(0);
    const r = await d.svc(["tail", uris[0]!, elsewhere]);
    expect(r.stdout.trimEnd().split("\n").sort()).toEqual(
      [`[${d.basin}/${prefix}-a] one`, `[${d.basin}/${prefix}-a] two`, `[${other}/${prefix}-a] there`].sort(),
    );
  });

  it("--checkpoint: one position per stream; a rerun prints only what is new", async () => {
    const { prefix, uris, pattern } = await streams(["a", "b"], 2);
    const file = join(scratchDir("svc-tail-ck-"), "positions.json");
    const first = await d.svc(["tail", pattern, "--checkpoint", file, "-n", "1"]);
    expect(first.stdout.trimEnd().split("\n").sort()).toEqual([`[${prefix}-a] a:1`, `[${prefix}-b] b:1`]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ [uris[0]!]: 2, [uris[1]!]: 2 });
    expect((await d.svc(["append", uris[1]!], { stdin: "b:new\n" })).code).toBe(0);
    const again = await d.svc(["tail", pattern, "--checkpoint", file]);
    expect(again.stdout).toBe(`[${prefix}-b] b:new\n`);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ [uris[0]!]: 2, [uris[1]!]: 3 });
    expect((await d.svc(["read", uris[0]!, "--checkpoint", file])).code).toBe(2); // a one-stream command refuses it
  });

  it("-f with a pattern: live records, a new stream from its first record, a deleted one dropped; Ctrl-C exits 130", async () => {
    const { prefix, uris, pattern } = await streams(["a", "b"], 1);
    const file = join(scratchDir("svc-tail-f-"), "positions.json");
    const child = d.spawnSvc(["tail", "-f", pattern, "-n", "0", "--discover-interval", "300ms", "--checkpoint", file]);
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
    const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 100 && !what(); i++) await sleep(100);
      expect(what(), `stdout:\n${out}\nstderr:\n${err}`).toBe(true);
    };
    await until(() => err.includes("following 2 streams"));
    expect((await d.svc(["append", uris[0]!], { stdin: "a:live\n" })).code).toBe(0);
    await until(() => out.includes(`[${prefix}-a] a:live\n`));
    const c = `svc://${d.basin}/${prefix}-c`;
    expect((await d.svc(["stream", "create", c])).code).toBe(0);
    expect((await d.svc(["append", c], { stdin: "c:0\nc:1\n" })).code).toBe(0);
    await until(() => out.includes(`[${prefix}-c] c:0\n[${prefix}-c] c:1\n`));
    expect(err).toContain(`${c}: new, following from its first record`);
    expect((await d.svc(["stream", "delete", uris[1]!, "--yes"])).code).toBe(0);
    await until(() => err.includes(`${uris[1]} was deleted; no longer following it`));
    expect((await d.svc(["append", uris[0]!], { stdin: "a:after\n" })).code).toBe(0);
    await until(() => out.includes(`[${prefix}-a] a:after\n`));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(out).not.toContain("b:0"); // -n 0: nothing from before
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ [uris[0]!]: 3, [c]: 2 });
  }, 30_000);

  it("usage: a wildcard not at the end, binary output, a stream that does not exist", async () => {
    const bad = await d.svc(["tail", `svc://${d.basin}/a*b`, `svc://${d.basin}/c`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("only a trailing * is supported");
    const basinPattern = await d.svc(["tail", "svc://data*"]);
    expect(basinPattern.code).toBe(2);
    const { uris } = await streams(["a", "b"], 1);
    expect((await d.svc(["tail", ...uris, "--format", "binary"])).code).toBe(2);
    const missing = await d.svc(["tail", uris[0]!, `svc://${d.basin}/no-such-stream`]);
    expect(missing.code).toBe(4);
    expect(missing.stdout).toBe("");
  });

  it.skipIf(!ptyAvailable)("labels are coloured on a terminal, one colour per stream", async () => {
    const { prefix, pattern } = await streams(["a", "b"], 1);
    const r = await runSvcInPty(["tail", pattern], { ...d.env, FORCE_COLOR: "1" });
    expect(r.code, r.raw).toBe(0);
    expect(r.raw).toMatch(new RegExp(`\\x1b\\[36m\\[${prefix}-a\\]\\x1b\\[39m a:0`));
    expect(r.raw).toMatch(new RegExp(`\\x1b\\[32m\\[${prefix}-b\\]\\x1b\\[39m b:0`));
    const plain = await d.svc(["tail", pattern]);
    expect(plain.stdout).not.toContain("\x1b");
  });
});
