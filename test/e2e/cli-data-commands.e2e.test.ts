/**
 * `svc tail`, `svc fence`, `svc trim` and the exit-code contract of the data commands against a
 * real lite: tail clamps to what exists; fence/trim name the command record's own position and
 * the tail; bad input exits 7 naming file:line before its batch is sent; conditions exit 5
 * showing the expected value; usage errors exit 2.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDir } from "../helpers/scratch.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
const dir = scratchDir("svc-data-");

beforeAll(async () => {
  d = await dataEnv();
});
afterAll(async () => {
  await d?.stop();
});

const tailOf = async (uri: string) => Number((await d.svc(["check-tail", uri, "--seq-only"])).stdout.trim());

describe("svc tail", () => {
  it("prints the last N, clamped to what exists", async () => {
    const uri = await d.newStream();
    const empty = await d.svc(["tail", uri]);
    expect(empty).toMatchObject({ code: 0, stdout: "" });
    await d.svc(["append", uri], { stdin: "a\nb\nc\n" });
    expect(await d.svc(["tail", uri, "-n", "10"])).toMatchObject({ code: 0, stdout: "a\nb\nc\n" });
    expect((await d.svc(["tail", uri, "-n", "2"])).stdout).toBe("b\nc\n");
    expect((await d.svc(["tail", uri, "-n", "1", "--format", "json"])).stdout).toMatch(
      /^\{"seq_num":2,.*"body":"c"\}\n$/,
    );
  });

  it("counts data records in text mode and sends command records to stderr", async () => {
    const uri = await d.newStream();
    await d.svc(["append", uri], { stdin: "a\nb\nc\n" });
    await d.svc(["fence", uri, "w1"]);
    await d.svc(["append", uri, "-F", "w1"], { stdin: "d\n" });
    const t = await d.svc(["tail", uri, "-n", "3"]);
    expect(t.stdout).toBe("b\nc\nd\n");
    expect(t.stderr).toMatch(/^new fencing token "w1" \/\/ 3 @ \d+\n$/);
    const j = await d.svc(["tail", uri, "-n", "2", "--format", "json"]);
    expect(
      j.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).seq_num),
    ).toEqual([2, 3, 4]); // 2 data records, the fence between them inline
    const skip = await d.svc(["read", uri, "-s", "0", "-e", "--commands", "skip"]);
    expect(skip).toMatchObject({ stdout: "a\nb\nc\nd\n", stderr: "" });
  });

  it("follows with -f from the last N", async () => {
    const uri = await d.newStream();
    await d.svc(["append", uri], { stdin: "old1\nold2\n" });
    const child = d.spawnSvc(["tail", uri, "-n", "1", "-f"]);
    const closed = new Promise((r) => child.on("close", r));
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    const until = async (want: string) => {
      for (let i = 0; i < 200 && !out.includes(want); i++) await new Promise((r) => setTimeout(r, 25));
    };
    await until("old2\n");
    await d.svc(["append", uri], { stdin: "new1\n" });
    await until("new1\n");
    child.kill("SIGINT");
    const code = await closed;
    expect(out).toBe("old2\nnew1\n");
    expect(code).toBe(130);
  });
});

describe("svc fence / trim", () => {
  it("name the command record's position and the tail", async () => {
    const uri = await d.newStream();
    await d.svc(["append", uri], { stdin: "a\nb\nc\n" });
    const f = await d.svc(["fence", uri, "writer-2"]);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stderr).toMatch(/^✓ fence set to "writer-2" \(record 3 @ \d{4}-[\d-]+T[\d:.]+Z\) tail 4\n$/);
    const t = await d.svc(["trim", uri, "2", "-F", "writer-2", "--json", "--yes"]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toMatch(/^✓ trim to 2 \(record 4 @ .*\) tail 5\n$/);
    expect(JSON.parse(t.stdout)).toMatchObject({ start: { seq_num: 4 }, end: { seq_num: 5 }, tail: { seq_num: 5 } });
    const k = await d.svc(["trim", uri, "--keep-last", "2", "--dry-run"]);
    expect(k.stderr).toMatch(/^would trim to 3: /);
    expect(await tailOf(uri)).toBe(5);
    const c = await d.svc(["fence", uri, "--clear", "-F", "writer-2", "-m", "5"]);
    expect(c.stderr).toMatch(/^✓ fence cleared \(record 5 @ .*\) tail 6\n$/);
    const shown = await d.svc(["read", uri, "-s", "3", "-e", "--format", "json-base64"]);
    const cmds = shown.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(cmds.map((x) => [x.seq_num, x.headers, x.body])).toEqual([
      [3, [["", "ZmVuY2U="]], Buffer.from("writer-2").toString("base64")],
      [4, [["", "dHJpbQ=="]], "AAAAAAAAAAI="],
      [5, [["", "ZmVuY2U="]], ""],
    ]);
    const text = await d.svc(["read", uri, "-s", "3", "-e"]);
    expect(text.stdout).toBe("");
    expect(text.stderr).toMatch(
      /^new fencing token "writer-2" \/\/ 3 @ \d+\ntrim to 2 \/\/ 4 @ \d+\nnew fencing token "" \/\/ 5 @ \d+\n$/,
    );
  });

  it("validate locally and exit 5 on mismatches, showing the expected value", async () => {
    const uri = await d.newStream();
    expect((await d.svc(["fence", uri, "x".repeat(37)])).code).toBe(2);
    expect((await d.svc(["fence", uri])).code).toBe(2);
    expect((await d.svc(["trim", uri])).code).toBe(2);
    await d.svc(["fence", uri, "owner"]);
    const bad = await d.svc(["fence", uri, "thief", "-F", "nope"]);
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain('"owner"');
    const seq = await d.svc(["trim", uri, "1", "-m", "7", "--yes"]);
    expect(seq.code).toBe(5);
    expect(seq.stderr).toMatch(/next position is 1/);
  });
});

describe("exit codes of append and read", () => {
  it("7 for malformed input, naming file:line, with nothing of that batch sent", async () => {
    const uri = await d.newStream();
    const file = join(dir, "bad.ndjson");
    writeFileSync(file, '{"body":"ok"}\n{"body":"fine"}\n{"body": nope}\n{"body":"after"}\n');
    const a = await d.svc(["append", uri, "--format", "json", "-i", file]);
    expect(a.code).toBe(7);
    expect(a.stderr).toContain(`${file}:3: invalid JSON`);
    expect(await tailOf(uri)).toBe(0);
    const b = await d.svc(["append", uri, "--format", "json-base64"], { stdin: '{"body":"aGk="}\n{"body":"aGk"}\n' });
    expect(b.code).toBe(7);
    expect(b.stderr).toContain("stdin:2: invalid base64 in body");
    const big = await d.svc(["append", uri, "--format", "json"], {
      stdin: JSON.stringify({ body: "x".repeat(1024 * 1024) }) + "\n",
    });
    expect(big.code).toBe(7);
    expect(big.stderr).toMatch(/stdin:1: record is 1048584 metered bytes; the limit is 1048576/);
    expect(await tailOf(uri)).toBe(0);
    const skip = await d.svc(["append", uri, "--format", "json", "--on-error", "skip", "-i", file]);
    expect(skip.code).toBe(0);
    expect(skip.stderr).toContain(`skipping ${file}:3`);
    expect(await tailOf(uri)).toBe(3);
  });

  it("5 for match-seq-num and fencing mismatches; auto chains from the tail", async () => {
    const uri = await d.newStream();
    expect((await d.svc(["append", uri, "-m", "0"], { stdin: "a\n" })).code).toBe(0);
    const m = await d.svc(["append", uri, "-m", "0"], { stdin: "b\n" });
    expect(m.code).toBe(5);
    expect(m.stderr).toMatch(/next position is 1/);
    const auto = await d.svc(["append", uri, "-m", "auto", "--max-batch-records", "1"], { stdin: "b\nc\nd\n" });
    expect(auto.code, auto.stderr).toBe(0);
    await d.svc(["fence", uri, "me"]);
    const f = await d.svc(["append", uri, "-F", "you"], { stdin: "x\n" });
    expect(f.code).toBe(5);
    expect(f.stderr).toContain('"me"');
  });

  it("2 for usage errors; reading beyond the tail is 5; reading at the tail is empty", async () => {
    const uri = await d.newStream();
    for (const args of [
      ["append", uri, "--format", "xml"],
      ["read", uri, "-s", "1", "--ago", "1h"],
      ["read", uri, "--template", "{nope}"],
      ["read", "svc://x"],
      ["append", uri, "--max-batch-records", "1001"],
      ["read", uri, "-f", "-e"],
      ["tail", uri, "-n", "x"],
    ]) {
      const r = await d.svc(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe("");
    }
    expect(await d.svc(["read", uri, "-e"])).toMatchObject({ code: 0, stdout: "" });
    expect(await d.svc(["read", uri, "-s", "0", "-n", "5"])).toMatchObject({ code: 0, stdout: "" });
    const beyond = await d.svc(["read", uri, "-s", "9", "-n", "1"]);
    expect(beyond.code).toBe(5);
    expect((await d.svc(["read", "svc://nonexistent-basin-zz/s", "-e"])).code).toBe(4);
  });
});
