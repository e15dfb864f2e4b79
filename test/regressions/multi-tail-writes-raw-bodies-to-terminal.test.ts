/**
 * Bug (security review): `svc tail` of several streams wrote record bodies to a terminal as
 * they were: a body holding OSC 52 (a clipboard write), a window title or clear-screen reached
 * the terminal, because `cli/read/multi-tail.ts` built its record printer without the terminal
 * flag that `read-run.ts` passes, and its JSON branch added the stream's name with
 * JSON.stringify, which leaves DEL and C1 controls as they are. Reproduced with
 * `svc tail svc://b/plain svc://b/<name with C1> -n 5` (text and `--format json`) under a
 * pseudo-terminal.
 *
 * Expected: as for one stream, on a terminal every body, label and name is shown escaped
 * (`\x1b`, `\x9b` in text; `\u001b`, `\u009b` in JSON); piped, bytes pass as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";

const OSC52 = "a\x1b]52;c;SGVsbG8=\x07b\u009bc";
const EVIL_NAME = "evil\u009b2J";

let lite: Lite;
let env: Record<string, string>;
let basin: string;

beforeAll(async () => {
  lite = await startLite();
  env = cliEnv(lite);
  basin = uniqueBasin("mtesc");
  await createStreams(lite, basin, ["plain", EVIL_NAME]);
  for (const s of ["plain", EVIL_NAME]) {
    const put = await runSvc(["append", `svc://${basin}/${s}`, "-q"], { env, stdin: `${OSC52}\n` });
    expect(put.code, put.stderr).toBe(0);
  }
}, 60_000);
afterAll(async () => {
  await lite?.stop();
});

const uris = (): string[] => [`svc://${basin}/plain`, `svc://${basin}/${EVIL_NAME}`];

function expectDefused(raw: string): void {
  expect(raw).not.toMatch(/\x1b\]/); // no OSC reached the terminal (svc's own output uses CSI only)
  expect(raw).not.toContain("\u009b");
}

describe.skipIf(!ptyAvailable)("svc tail of several streams on a terminal", () => {
  it("text: bodies and labels are shown escaped", async () => {
    const r = await runSvcInPty(["tail", ...uris(), "-n", "5"], env);
    expect(r.code, r.raw).toBe(0);
    expectDefused(r.raw);
    expect(r.raw).toContain("a\\x1b]52;c;SGVsbG8=\\x07b\\x9bc");
    expect(r.raw).toContain("evil\\x9b2J");
  }, 30_000);

  it("JSON: bodies and the stream field are shown escaped, still valid JSON", async () => {
    const r = await runSvcInPty(["tail", ...uris(), "-n", "5", "--format", "json"], env);
    expect(r.code, r.raw).toBe(0);
    expectDefused(r.raw);
    expect(r.raw).toContain('"body":"a\\u001b]52;c;SGVsbG8=\\u0007b\\u009bc"');
    expect(r.raw).toContain('"stream":"evil\\u009b2J"');
  }, 30_000);
});

describe("svc tail of several streams into a pipe", () => {
  it("writes the bytes as they are", async () => {
    const r = await runSvc(["tail", ...uris(), "-n", "5", "--format", "json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { stream: string; body: string });
    expect(lines.map((l) => l.body)).toEqual([OSC52, OSC52]);
    expect(lines.map((l) => l.stream).sort()).toEqual(["plain", EVIL_NAME].sort());
  });
});
