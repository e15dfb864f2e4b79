/**
 * Bug (user trial): text input dropped a `\r` before each `\n` without a word, even with an
 * explicit `-d '\n'`: 20 MB of random bytes appended with `svc append URI -d '\n'` and read
 * back were 295 bytes short. Reproduced here with 256 KiB of random bytes holding many CRLFs.
 *
 * Expected: `-d` (any value, `\n` too) keeps every byte; the default text mode still drops the
 * CR of a CRLF line end (as S2's CLI does: text files from Windows), but counts what it dropped
 * in the summary (and `cr_dropped` in `--json`), and `--format text`'s help says so.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv, decodeJsonBase64 } from "../e2e/cli-data-setup.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
let file: string;
let input: Buffer;
beforeAll(async () => {
  d = await dataEnv();
  // Random bytes, with CRLFs sprinkled in (random data alone has few), ending with a newline.
  const parts: Buffer[] = [];
  for (let i = 0; i < 512; i++) parts.push(randomBytes(500), Buffer.from(i % 3 === 0 ? "\r\n" : "\n"));
  input = Buffer.concat(parts);
  file = join(scratchDir("svc-cr-"), "random.bin");
  writeFileSync(file, input);
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

/** The stream's bodies joined with `\n`, as the input was (it ends with a newline). */
async function readBack(uri: string): Promise<Buffer> {
  const r = await d.svc(["read", uri, "--from-beginning", "-e", "--format", "json-base64"]);
  expect(r.code, r.stderr).toBe(0);
  return Buffer.concat(decodeJsonBase64(r.stdout).flatMap((rec) => [rec.body, Buffer.from("\n")]));
}

/** Lines of `buf` (split at `\n`, the last empty one dropped) that end with `\r`. */
function crlfLines(buf: Buffer): number {
  let n = 0;
  for (let i = 1; i < buf.length; i++) if (buf[i] === 0x0a && buf[i - 1] === 0x0d) n++;
  return n;
}

describe("text input and carriage returns", () => {
  it("-d '\\n' keeps every byte", async () => {
    const uri = await d.newStream("keep");
    const r = await d.svc(["append", uri, "-i", file, "-d", "\\n"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("CR");
    expect((await readBack(uri)).equals(input)).toBe(true);
  });

  it("the default drops the CR of CRLF line ends and says how many", async () => {
    const dropped = crlfLines(input);
    expect(dropped).toBeGreaterThan(100);
    const uri = await d.newStream("default");
    const r = await d.svc(["append", uri, "-i", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `, ${dropped} CR bytes before newlines dropped (CRLF line ends; -d '\\n' keeps every byte)`,
    );
    const back = await readBack(uri);
    expect(back.length).toBe(input.length - dropped);
    const json = await d.svc(["append", await d.newStream("json"), "-i", file, "--json"]);
    expect(JSON.parse(json.stdout).cr_dropped).toBe(dropped);
  });

  it("--format text's help says what happens to CR", async () => {
    const r = await d.svc(["append", "--help"]);
    expect(r.stdout.replace(/\s+/g, " ")).toContain("the CR of a CRLF line end is dropped and counted in the summary");
  });
});
