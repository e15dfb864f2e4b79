/**
 * Bugs: `read -f` and `tail -f` printed records onto the progress
 * line (`⦿ waiting for recordslive-1`), and `append` flooded a terminal with one `✓ appended`
 * line per batch (2,100 for 200 MB; two for a one-record append). Run under a pseudo-terminal
 * with `script` (util-linux; .ci/run installs it) and checked on the rendered screen:
 * - `read -f` / `tail -f`: the progress line is cleared before records are written, so a
 *   record never shares a line with it;
 * - `append`: one live progress line and one summary, no per-batch lines (those come with
 *   `--acks text` or `-v`); in logs (no terminal) at most a line every few seconds;
 * - `read --format binary` refuses a terminal without `--force`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { eventually } from "../helpers/lite.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe.skipIf(!ptyAvailable)("svc on a terminal", () => {
  it.each([
    ["read", (uri: string) => ["read", uri, "-f", "-n", "3"], ""],
    ["tail", (uri: string) => ["tail", uri, "-f", "-n", "0"], "timeout -s INT 5"],
  ])(
    "%s -f: records never land on the progress line",
    async (_name, args, before) => {
      const uri = await d.newStream("tty");
      let seen = "";
      const run = runSvcInPty(args(uri), d.env, { before, watch: (raw) => (seen = raw) });
      await eventually(async () => seen.includes("⦿"), 20_000); // the progress line ("waiting for records")
      for (const body of ["live-1", "live-2", "live-3"]) {
        const a = await d.svc(["append", uri, "-q"], { stdin: `${body}\n` });
        expect(a.code, a.stderr).toBe(0);
        await eventually(async () => seen.includes(body), 20_000); // each record arrives on its own
      }
      const r = await run;
      expect(r.raw).toContain("⦿"); // the progress line was drawn: the case under test happened
      const shown = r.screen.filter((l) => l.includes("live-"));
      expect(shown, r.screen.join("\n")).toEqual(["live-1", "live-2", "live-3"]);
      expect(r.screen.some((l) => l.includes("⦿") && l.includes("live"))).toBe(false);
    },
    40_000,
  );

  it("append: one live progress line and one summary, no per-batch lines", async () => {
    const uri = await d.newStream("tty");
    const file = join(scratchDir("svc-tty-"), "in.txt");
    writeFileSync(file, Array.from({ length: 600 }, (_, i) => `line ${i}`).join("\n") + "\n");
    const r = await runSvcInPty(["append", uri, "-i", file, "--max-batch-records", "10", "--rate", "400"], d.env);
    expect(r.code, r.raw).toBe(0);
    expect(r.raw).toMatch(/⦿ appending: \d+ records/); // the live line was drawn (60 batches over 1.5 s)
    expect(r.raw).not.toMatch(/appended \d+\.\.\d+/);
    expect(r.screen).toHaveLength(1);
    expect(r.screen[0]).toMatch(/^✓ appended 600 records \(.* metered\) 0\.\.599 in /);
  }, 40_000);

  it("append in a log (no terminal): no per-batch lines; a progress line every 5 s at most, then the summary", async () => {
    const uri = await d.newStream("log");
    const input = Array.from({ length: 700 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const started = Date.now();
    const r = await d.svc(["append", uri, "--max-batch-records", "5", "--rate", "120"], { stdin: input });
    const secs = (Date.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trimEnd().split("\n");
    const progress = lines.filter((l) => l.startsWith("⦿ appending:"));
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(secs / 5));
    expect(lines.at(-1)).toMatch(/^✓ appended 700 records/);
    expect(lines).toHaveLength(progress.length + 1);
  }, 40_000);

  it("read --format binary refuses a terminal, and writes to one with --force", async () => {
    const uri = await d.newStream("bin");
    expect((await d.svc(["append", uri, "--whole"], { stdin: "\x01\x02bin" })).code).toBe(0);
    const refused = await runSvcInPty(["read", uri, "-s", "0", "-e", "--format", "binary"], d.env);
    expect(refused.code).toBe(2);
    expect(refused.screen.join("\n")).toMatch(/refusing to write binary records to a terminal/);
    const forced = await runSvcInPty(["read", uri, "-s", "0", "-e", "--format", "binary", "--force"], d.env);
    expect(forced.code).toBe(0);
    expect(forced.raw).toContain("bin");
  }, 40_000);
});
