/**
 * Bug (user trial): a record's bytes changed without a word. `svc append --whole -i rand300k.bin`
 * then `svc read -s 0 -n 1 > out` wrote 395,098 bytes of U+FFFD-mangled text, exit 0, nothing
 * on stderr; `svc read --json | svc append --format json` (offered as a copy) turned
 * `00 01 ff fe` into `00 01 ef bf bd`.
 *
 * Now text output (and a template's {body}) writes a body's own bytes, whatever they are; JSON,
 * which cannot carry bytes that are not UTF-8, still writes U+FFFD but says so once on stderr
 * with the count and the format that carries them (json-base64), and the README's copy recipe
 * (json-base64 both ways) is byte-exact for any bytes.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv, decodeJsonBase64 } from "../e2e/cli-data-setup.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

/** Runs svc and returns stdout as exact bytes. */
function bytesOf(args: string[], stdin?: Buffer): Promise<{ code: number | null; out: Buffer; err: string }> {
  const child = d.spawnSvc(args);
  const out: Buffer[] = [];
  let err = "";
  child.stdout.on("data", (c: Buffer) => out.push(c));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  child.stdin.end(stdin ?? Buffer.alloc(0));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out: Buffer.concat(out), err })));
}

describe("svc read never changes a record's bytes silently", () => {
  it("text output to a pipe carries a binary body exactly", async () => {
    const uri = await d.newStream("blob");
    const body = randomBytes(300 * 1024);
    const file = join(scratchDir("svc-bytes-"), "rand300k.bin");
    writeFileSync(file, body);
    const put = await d.svc(["append", uri, "--whole", "-i", file, "-q"]);
    expect(put.code, put.stderr).toBe(0);
    for (const extra of [[], ["--transport", "session"], ["--template", "{body}"]]) {
      const r = await bytesOf(["read", uri, "-s", "0", "-n", "1", ...extra]);
      expect(r.code, r.err).toBe(0);
      expect(r.out.length).toBe(body.length + 1);
      expect(r.out.equals(Buffer.concat([body, Buffer.from("\n")]))).toBe(true);
      expect(r.err).toBe("");
    }
  });

  it("--format json says once, with the count, that it could not carry the bytes, and names json-base64", async () => {
    const uri = await d.newStream("json");
    const odd = Buffer.from([0x00, 0x01, 0xff, 0xfe]);
    for (const body of [odd, Buffer.from("plain text"), odd]) {
      const put = await bytesOf(["append", uri, "--whole", "-q"], body);
      expect(put.code, put.err).toBe(0);
    }
    const r = await d.svc(["read", uri, "-s", "0", "-n", "3", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(3);
    const warnings = r.stderr.split("\n").filter((l) => l.includes("not UTF-8"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("2 records held bytes that are not UTF-8");
    expect(warnings[0]).toContain("--format json-base64");
    // Asked for: no warning.
    const asked = await d.svc(["read", uri, "-s", "0", "-n", "3", "--json", "--invalid-utf8", "replace"]);
    expect(asked.stderr).not.toContain("not UTF-8");
  });

  it("the README's copy recipe (json-base64 both ways) is byte-exact", async () => {
    const from = await d.newStream("from");
    const to = await d.newStream("to");
    const odd = Buffer.from([0x00, 0x01, 0xff, 0xfe]);
    expect((await bytesOf(["append", from, "--whole", "-q"], odd)).code).toBe(0);
    const out = await d.svc(["read", from, "--from-beginning", "-e", "--format", "json-base64"]);
    const copy = await d.svc(["append", to, "--format", "json-base64", "-q"], { stdin: out.stdout });
    expect(copy.code, copy.stderr).toBe(0);
    const back = await d.svc(["read", to, "--from-beginning", "-e", "--format", "json-base64"]);
    expect(decodeJsonBase64(back.stdout).map((r) => r.body.toString("hex"))).toEqual([odd.toString("hex")]);
  });
});
