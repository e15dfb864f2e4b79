/**
 * A file over one record's 1 MiB, whole (issue 45, item 15): `svc append --whole --chunk`
 * appends it as several records of at most 1 MiB metered, each with an `svc-chunk` header
 * (format/record-chunk.ts), and `svc read --join` puts them back together byte for byte, no
 * newline added. A set that is not whole is named: its first pieces trimmed, a file cut off by
 * a failed append, bytes that do not match the digest, a read that ends inside a file, a record
 * that is no piece. Real lite, the built bin/svc.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
let dir: string;
beforeAll(async () => {
  d = await dataEnv({ SVC_LITE_SWEEP_MS: "100" });
  dir = scratchDir("svc-chunks-");
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

const sha256 = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

async function ok(args: string[], stdin = ""): Promise<{ stdout: string; stderr: string }> {
  const r = await d.svc(args, { stdin });
  expect(r.code, `svc ${args.join(" ")}\n${r.stderr}`).toBe(0);
  return r;
}

/** `svc args` with `input` on stdin as bytes. */
function svcWithBytes(args: string[], input: Buffer): Promise<{ code: number | null; stderr: string }> {
  const child = d.spawnSvc(args);
  let stderr = "";
  child.stdout.resume();
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  child.stdin.end(input);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

/** One record of a piece, as `svc append --format json-base64` takes it. */
function pieceLine(value: string, body: Buffer): string {
  const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
  return `${JSON.stringify({ headers: [[b64("svc-chunk"), b64(value)]], body: body.toString("base64") })}\n`;
}

describe("a file over 1 MiB, whole", () => {
  it("30 MB of random bytes: appended in pieces of at most 1 MiB, read back identical", async () => {
    const uri = await d.newStream("big");
    const data = randomBytes(30_000_000);
    const file = join(dir, "big.bin");
    writeFileSync(file, data);
    const appended = await ok(["append", uri, "--whole", "--chunk", "-i", file, "--json"]);
    const summary = JSON.parse(appended.stdout) as { records: number };
    expect(summary.records).toBe(29); // 30,000,000 bytes in pieces of 1,048,425
    const sizes = (await ok(["read", uri, "-s", "0", "-e", "--template", "{size}"])).stdout.trim().split("\n");
    expect(sizes).toHaveLength(29);
    for (const s of sizes) expect(Number(s)).toBeLessThanOrEqual(1024 * 1024);
    const out = join(dir, "big.out");
    await ok(["read", uri, "-s", "0", "-e", "--join", "-o", out]);
    const back = readFileSync(out);
    expect(back.length).toBe(data.length);
    expect(sha256(back)).toBe(sha256(data));
  }, 120_000);

  it("from stdin, with --chunk SIZE and -H headers on every piece; two files in a row", async () => {
    const uri = await d.newStream("stdin");
    const a = randomBytes(3 * 256 * 1024); // a multiple of no piece: the last is short
    const b = Buffer.from("no newline at the end");
    for (const input of [a, b]) {
      const r = await svcWithBytes(["append", uri, "--chunk", "256KiB", "-H", "kind=backup", "-q"], input);
      expect(r.code, r.stderr).toBe(0);
    }
    const headers = (await ok(["read", uri, "-s", "0", "-e", "--format", "json", "--headers-only"])).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).headers as string[][]);
    expect(headers).toHaveLength(5);
    for (const h of headers) expect(h).toContainEqual(["kind", "backup"]);
    expect(headers[3]![0]![1]).toMatch(/^[0-9a-f]{16} 3 last 786432 [0-9a-f]{64}$/);
    const out = join(dir, "two.out");
    await ok(["read", uri, "-s", "0", "-e", "--join", "-o", out]);
    expect(readFileSync(out).equals(Buffer.concat([a, b]))).toBe(true);
    const second = join(dir, "second.out");
    await ok(["read", uri, "-s", "4", "-e", "--join", "-o", second]);
    expect(readFileSync(second, "utf8")).toBe("no newline at the end");
  });

  it("an empty file is one piece", async () => {
    const uri = await d.newStream("empty");
    const file = join(dir, "empty");
    writeFileSync(file, "");
    await ok(["append", uri, "--chunk", "-i", file]);
    const r = await ok(["read", uri, "-s", "0", "-e", "--join"]);
    expect(r.stdout).toBe("");
  });
});

describe("a file that is not whole is named", () => {
  it("its first pieces trimmed: exit 5, nothing written", async () => {
    const uri = await d.newStream("trimmed");
    const r = await svcWithBytes(["append", uri, "--chunk", "64KiB"], randomBytes(300 * 1024));
    expect(r.code, r.stderr).toBe(0);
    await ok(["trim", uri, "1", "--yes"]);
    await eventually(async () =>
      (await ok(["read", uri, "-s", "0", "-n", "1", "--format", "json"])).stdout.includes('"seq_num":1'),
    );
    const out = join(dir, "trimmed.out");
    const read = await d.svc(["read", uri, "--from-beginning", "-e", "--join", "-o", out]);
    expect(read.code, read.stderr).toBe(5);
    expect(read.stderr).toMatch(
      /record 1 of \S+ is piece 1 of file [0-9a-f]{16}, whose earlier pieces this read did not get/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("a file cut off part way, then appended again: the hint's read gets the whole one", async () => {
    const uri = await d.newStream("cut");
    const data = randomBytes(5000);
    // What a failed append leaves: the first two pieces of a file, no last one.
    await ok(
      ["append", uri, "--format", "json-base64", "-q"],
      pieceLine("00000000000000aa 0", data.subarray(0, 2000)) +
        pieceLine("00000000000000aa 1", data.subarray(2000, 4000)),
    );
    const again = await svcWithBytes(["append", uri, "--chunk", "1KiB", "-q"], data);
    expect(again.code, again.stderr).toBe(0);
    const cut = await d.svc(["read", uri, "-s", "0", "-e", "--join"]);
    expect(cut.code, cut.stderr).toBe(5);
    expect(cut.stderr).toContain(
      `file 00000000000000aa of ${uri} stops after pieces 0..1 (records 0..1), without its last piece: record 2 starts another file`,
    );
    expect(cut.stderr).toContain(`hint: \`svc read ${uri} -s 2 --join\` reads from the file that starts there`);
    const out = join(dir, "cut.out");
    await ok(["read", uri, "-s", "2", "-e", "--join", "-o", out]);
    expect(readFileSync(out).equals(data)).toBe(true);
  });

  it("bytes that do not match the last piece's digest: exit 7", async () => {
    const uri = await d.newStream("tampered");
    await ok(
      ["append", uri, "--format", "json-base64", "-q"],
      pieceLine("00000000000000bb 0", Buffer.from("abc")) +
        pieceLine(`00000000000000bb 1 last 6 ${sha256(Buffer.from("abcdeF"))}`, Buffer.from("def")),
    );
    const r = await d.svc(["read", uri, "-s", "0", "-e", "--join"]);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain("is not the file that was appended: its pieces hold 6 bytes with SHA-256");
  });

  it("a read that ends inside a file: exit 5; a record that is no piece: exit 7", async () => {
    const uri = await d.newStream("ends");
    const r = await svcWithBytes(["append", uri, "--chunk", "1KiB", "-q"], randomBytes(5000));
    expect(r.code, r.stderr).toBe(0);
    const short = await d.svc(["read", uri, "-s", "0", "-n", "2", "--join"]);
    expect(short.code, short.stderr).toBe(5);
    expect(short.stderr).toContain("it got pieces 0..1 (records 0..1), not its last one");
    await ok(["append", uri, "-q"], "a text line\n");
    const text = await d.svc(["read", uri, "-s", "0", "-e", "--join"]);
    expect(text.code, text.stderr).toBe(7);
    expect(text.stderr).toContain(`record 6 of ${uri} is no piece of a file: it has no svc-chunk header`);
  });

  it("--join refuses what would change the bytes, and a checkpoint", async () => {
    const uri = await d.newStream("flags");
    for (const extra of [
      ["--format", "json"],
      ["--template", "{body}"],
      ["--grep", "x"],
      ["--checkpoint", "c"],
    ]) {
      const r = await d.svc(["read", uri, "-s", "0", "-e", "--join", ...extra]);
      expect(r.code, `${extra.join(" ")}: ${r.stderr}`).toBe(2);
    }
  });
});
