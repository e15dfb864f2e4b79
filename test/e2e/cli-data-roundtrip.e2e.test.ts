/**
 * `svc append` → `svc read` through a real lite: records come back byte for byte in every
 * format (json-base64 with all 256 byte values, empty bodies and headers; json; text), with
 * `-H`, `--timestamp`, several `-i` files, `--format binary`, custom delimiters, `--acks`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDir } from "../helpers/scratch.js";
import { type DataEnv, dataEnv, decodeJsonBase64 } from "./cli-data-setup.js";

let d: DataEnv;
const dir = scratchDir("svc-data-");

beforeAll(async () => {
  d = await dataEnv();
});
afterAll(async () => {
  await d?.stop();
});

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

describe("svc append / read round trips", () => {
  it("json-base64 round-trips every byte value, empty bodies and empty headers", async () => {
    const uri = await d.newStream();
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const records = [
      { headers: [[all, all]], body: all },
      { headers: [], body: Buffer.alloc(0) },
      { headers: [[Buffer.from("k"), Buffer.alloc(0)]], body: Buffer.alloc(0) },
      {
        headers: [
          [Buffer.from([0]), Buffer.from([0xff])],
          [Buffer.from("x"), Buffer.from("y")],
        ],
        body: Buffer.from([0x0a, 0x0d, 0x00]),
      },
      ...Array.from({ length: 256 }, (_, i) => ({ headers: [], body: Buffer.from([i]) })),
    ];
    const input =
      records
        .map((r) => JSON.stringify({ headers: r.headers.map(([n, v]) => [b64(n!), b64(v!)]), body: b64(r.body) }))
        .join("\n") + "\n";
    const a = await d.svc(["append", uri, "--format", "json-base64"], { stdin: input });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toBe("");
    const r = await d.svc(["read", uri, "-s", "0", "-e", "--format", "json-base64"]);
    expect(r.code, r.stderr).toBe(0);
    const got = decodeJsonBase64(r.stdout);
    expect(got.map((x) => x.seq_num)).toEqual(records.map((_, i) => i));
    got.forEach((x, i) => {
      expect(x.body.equals(records[i]!.body)).toBe(true);
      expect(x.headers.length).toBe(records[i]!.headers.length);
      x.headers.forEach(([n, v], k) => {
        expect(n.equals(records[i]!.headers[k]![0]!)).toBe(true);
        expect(v.equals(records[i]!.headers[k]![1]!)).toBe(true);
      });
    });
    // Feeding read output back in (seq_num and timestamp included) copies the stream exactly.
    const copy = await d.newStream("copy");
    const back = await d.svc(["append", copy, "--format", "json-base64", "-q"], { stdin: r.stdout });
    expect(back).toMatchObject({ code: 0, stderr: "" });
    const r2 = await d.svc(["read", copy, "-s", "0", "-e", "--format", "json-base64"]);
    expect(r2.stdout).toBe(r.stdout);
  });

  it("json round-trips Unicode text, headers and client timestamps; text round-trips lines", async () => {
    const uri = await d.newStream();
    const lines = [
      {
        timestamp: 1000,
        headers: [
          ["content-type", "text/plain"],
          ["ü", "☃"],
        ],
        body: "hello 🌍",
      },
      { timestamp: 1001, headers: [], body: "" },
      { timestamp: 1002, headers: [["a", ""]], body: 'tab\there "quoted" \\ \u0000 nul' },
    ];
    const a = await d.svc(["append", uri, "--format", "json"], {
      stdin: lines.map((l) => JSON.stringify(l)).join("\r\n"),
    });
    expect(a.code, a.stderr).toBe(0);
    const r = await d.svc(["read", uri, "-s", "0", "-e", "--format", "json"]);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(lines.map((l, i) => ({ seq_num: i, ...l })));

    const t = await d.newStream();
    const text = ["first", "", "ünïcödé ☃", "  spaced  ", "last without newline"];
    expect((await d.svc(["append", t], { stdin: text.join("\n") })).code).toBe(0);
    const rt = await d.svc(["read", t, "--from-beginning", "-e"]);
    expect(rt).toMatchObject({ code: 0, stdout: text.join("\n") + "\n" });
  });

  it("adds -H headers and --timestamp, reads files in order, binary and delimiters", async () => {
    const uri = await d.newStream();
    const f1 = join(dir, "one.txt");
    const f2 = join(dir, "two.txt");
    writeFileSync(f1, "a\nb\n");
    writeFileSync(f2, "c");
    const a = await d.svc([
      "append",
      uri,
      "-i",
      f1,
      "-i",
      f2,
      "-H",
      "k=v",
      "-H",
      "bin:=AAH/",
      "--timestamp",
      "2026-01-01T00:00:00Z",
    ]);
    expect(a.code, a.stderr).toBe(0);
    const r = await d.svc(["read", uri, "-s", "0", "-e", "--format", "json-base64"]);
    const got = decodeJsonBase64(r.stdout);
    expect(got.map((x) => x.body.toString())).toEqual(["a", "b", "c"]);
    expect(got[0]!.headers.map(([n, v]) => [n.toString(), v.toString("hex")])).toEqual([
      ["k", "76"],
      ["bin", "0001ff"],
    ]);
    expect(got[0]!.timestamp).toBe(Date.UTC(2026, 0, 1));

    const bin = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
    const bf = join(dir, "blob.bin");
    writeFileSync(bf, bin);
    const bu = await d.newStream();
    expect((await d.svc(["append", bu, "--format", "binary", "-i", bf, "-i", bf])).code).toBe(0);
    const rb = decodeJsonBase64((await d.svc(["read", bu, "-s", "0", "-e", "--format", "base64"])).stdout);
    expect(rb.map((x) => x.body.equals(bin))).toEqual([true, true]);

    const du = await d.newStream();
    expect((await d.svc(["append", du, "-0"], { stdin: "x\ny\0z\0" })).code).toBe(0);
    expect(
      (await d.svc(["read", du, "-s", "0", "-e", "--format", "json", "--meta-only"])).stdout.trim().split("\n"),
    ).toHaveLength(2);
    expect((await d.svc(["read", du, "-s", "0", "-e", "--delimiter", "|"])).stdout).toBe("x\ny|z|");
  });

  it("prints one summary (per-batch lines with --acks text or -v); --acks ndjson; -q is silent", async () => {
    const uri = await d.newStream();
    const a = await d.svc(["append", uri], { stdin: "1\n2\n3\n" });
    expect(a.code).toBe(0);
    expect(a.stderr).toMatch(/^✓ appended 3 records \(27 B metered\) 0\.\.2 in [^\n]*\n$/);
    const t = await d.svc(["append", await d.newStream(), "--acks", "text"], { stdin: "1\n2\n3\n" });
    expect(t.stderr).toMatch(
      /^✓ appended 0\.\.2 \(3 records\) tail 3 @ \d{4}-\d\d-\d\dT[\d:.]+Z\n✓ appended 3 records \(27 B metered\) 0\.\.2 in /,
    );
    const v = await d.svc(["append", await d.newStream(), "-v"], { stdin: "1\n" });
    expect(v.stderr).toMatch(/✓ appended 0 \(1 record\) tail 1 @ /);
    const js = await d.svc(["append", await d.newStream(), "--json"], { stdin: "1\n2\n" });
    expect(js.stderr).toBe("");
    expect(JSON.parse(js.stdout)).toMatchObject({
      records: 2,
      bytes: 18,
      batches: 1,
      start: 0,
      end: 2,
      tail: { seq_num: 2 },
    });
    const j = await d.svc(["append", uri, "--acks", "ndjson", "--max-batch-records", "2"], { stdin: "4\n5\n6\n" });
    const acks = j.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(acks.map((x) => [x.start.seq_num, x.end.seq_num, x.records])).toEqual([
      [3, 5, 2],
      [5, 6, 1],
    ]);
    expect(acks[1].tail.seq_num).toBe(6);
    const q = await d.svc(["append", uri, "-q"], { stdin: "7\n" });
    expect(q).toMatchObject({ code: 0, stdout: "", stderr: "" });
    const u = await d.svc(["append", uri, "--transport", "unary", "--acks", "none"], { stdin: "8\n9\n" });
    expect(u.code, u.stderr).toBe(0);
    expect((await d.svc(["read", uri, "-s", "0", "-e"])).stdout).toBe("1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  });

  it("read: -n, -b, --until-seq, --range, templates, -o truncates, unary transport", { timeout: 90_000 }, async () => {
    const uri = await d.newStream();
    await d.svc(["append", uri, "-H", "type=t"], { stdin: Array.from({ length: 20 }, (_, i) => `r${i}`).join("\n") });
    expect((await d.svc(["read", uri, "-s", "5", "-n", "3"])).stdout).toBe("r5\nr6\nr7\n");
    expect((await d.svc(["read", uri, "-s", "0", "-b", "40"])).stdout).toBe("r0\nr1\n"); // 8+2+4+1+2=17 or 18 each
    expect((await d.svc(["read", uri, "--range", "18:", "-e"])).stdout).toBe("r18\nr19\n");
    expect((await d.svc(["read", uri, "--range", "3:5"])).stdout).toBe("r3\nr4\n");
    expect((await d.svc(["read", uri, "-s", "0", "--until-seq", "2"])).stdout).toBe("r0\nr1\n");
    expect(
      (await d.svc(["read", uri, "-e", "--tail-offset", "1", "--template", "{seq_num}:{header:type}:{body}"])).stdout,
    ).toBe("19:t:r19\n");
    const out = join(dir, "out.txt");
    writeFileSync(out, "old content that must go\n".repeat(10));
    const o = await d.svc(["read", uri, "-s", "0", "-n", "2", "-o", out]);
    expect(o).toMatchObject({ code: 0, stdout: "" });
    expect(readFileSync(out, "utf8")).toBe("r0\nr1\n");
    await d.svc(["read", uri, "-s", "2", "-n", "1", "-o", out, "--append-output"]);
    expect(readFileSync(out, "utf8")).toBe("r0\nr1\nr2\n");
    expect((await d.svc(["read", uri, "-s", "0", "-e", "--transport", "unary"])).stdout.split("\n")).toHaveLength(21);
    expect((await d.svc(["read", uri, "-s", "15", "-e", "--grep", "r1[67]"])).stdout).toBe("r16\nr17\n");
    const idle = await d.svc(["read", uri, "--idle-timeout", "300ms"]);
    expect(idle).toMatchObject({ code: 0, stdout: "" });
    const ts = JSON.parse((await d.svc(["read", uri, "-s", "10", "-n", "1", "--format", "json"])).stdout)
      .timestamp as number;
    expect((await d.svc(["read", uri, "--timestamp", String(ts), "-n", "1", "--format", "json"])).stdout).toContain(
      '"seq_num"',
    );
    expect((await d.svc(["read", uri, "--ago", "1h", "-n", "1"])).stdout).toBe("r0\n");
  });
});
