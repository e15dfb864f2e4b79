/**
 * What a new user's trial asked of the CLI (issue 12), each as a child process against lite:
 * `--json` on append and read (3), `--format binary` bytes in = bytes out (4), help (8),
 * `diff`, `version`, completion (11).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDir } from "../helpers/scratch.js";
import { dataEnv, type DataEnv } from "./cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => { d = await dataEnv(); }, 60_000);
afterAll(async () => { await d?.stop(); });

describe("--json on append and read (item 3)", () => {
  it("append --json prints one JSON summary; read --json is --format json; a conflicting --format is refused", async () => {
    const uri = await d.newStream("json");
    const a = await d.svc(["append", uri, "--json", "--max-batch-records", "2"], { stdin: "a\nb\nc\n" });
    expect(a.code, a.stderr).toBe(0);
    const doc = JSON.parse(a.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ records: 3, batches: 2, start: 0, end: 3, tail: { seq_num: 3 } });
    expect(typeof doc.duration_ms).toBe("number");
    expect(doc.bytes).toBe(27);
    const r = await d.svc(["read", uri, "-s", "0", "-e", "--json"]);
    expect(r.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { body: string }).body)).toEqual(["a", "b", "c"]);
    const bad = await d.svc(["read", uri, "-s", "0", "-e", "--json", "--format", "text"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--json is --format json/);
  });
});

describe("--format binary (item 4)", () => {
  it("read -n 1 --format binary > file gives a file identical to the input (cmp)", async () => {
    const dir = scratchDir("svc-bin-");
    const input = join(dir, "photo.jpg");
    const output = join(dir, "copy.jpg");
    writeFileSync(input, randomBytes(300_000));
    const uri = await d.newStream("bin");
    expect((await d.svc(["append", uri, "--whole", "-i", input])).code).toBe(0);
    const sh = spawnSync("bash", ["-c", `"${process.execPath}" "${join(import.meta.dirname, "../../bin/svc.js")}" read '${uri}' -s 0 -n 1 --format binary > '${output}'`], { env: { ...process.env, ...d.env, HOME: dir } });
    expect(sh.status, sh.stderr.toString()).toBe(0);
    expect(spawnSync("cmp", [input, output]).status).toBe(0);
  });

  it("writes bodies back to back with no delimiter unless asked; -0 separates them", async () => {
    const uri = await d.newStream("bin");
    expect((await d.svc(["append", uri], { stdin: "ab\ncd\n" })).code).toBe(0);
    expect((await d.svc(["read", uri, "-s", "0", "-e", "--format", "binary"])).stdout).toBe("abcd");
    expect((await d.svc(["read", uri, "-s", "0", "-e", "--format", "binary", "-0"])).stdout).toBe("ab\0cd\0");
    const dir = scratchDir("svc-bin-");
    expect((await d.svc(["read", uri, "-s", "0", "-e", "--format", "binary", "-o", join(dir, "o")])).code).toBe(0);
    expect(readFileSync(join(dir, "o"), "utf8")).toBe("abcd");
  });
});
