/**
 * Ctrl-C during a long `svc append` (docs/design/reliability.md, "Ctrl-C"): input arrives slowly on
 * stdin, SIGINT lands at a random moment. The CLI must stop reading, wait for in-flight acks,
 * report the last acked position and exit 130; the stream must equal a prefix of the input (no
 * duplicate, no reordering) holding every batch reported as acked. A second Ctrl-C ends it at once.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { rng } from "../helpers/seeded.js";

const EXTENDED = process.env.RELIABILITY === "extended";
const RUNS = EXTENDED ? 50 : 6;
const SEED = Number(process.env.SEED ?? Date.now() % 100_000);

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
  console.log(`SEED=${SEED}`);
});
afterAll(async () => {
  await d?.stop();
});

/** Feeds numbered lines slowly until stopped; returns every line written. */
function feed(child: ChildProcessWithoutNullStreams, perTick: number): { lines: string[]; stop: () => void } {
  const lines: string[] = [];
  child.stdin.on("error", () => {});
  const timer = setInterval(() => {
    let chunk = "";
    for (let k = 0; k < perTick; k++) {
      const l = `line-${lines.length}`;
      lines.push(l);
      chunk += `${l}\n`;
    }
    child.stdin.write(chunk);
  }, 5);
  return { lines, stop: () => clearInterval(timer) };
}

const closed = (child: ChildProcessWithoutNullStreams) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on("close", (code, signal) => r({ code, signal })),
  );

describe("svc append under Ctrl-C", () => {
  it(`leaves a prefix of the input holding every reported ack (${RUNS} runs)`, async () => {
    const random = rng(SEED);
    for (let run = 0; run < RUNS; run++) {
      const uri = await d.newStream("sigint");
      const child = d.spawnSvc(["append", uri, "--linger", "2ms", "--acks", "text"]);
      const done = closed(child);
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
      const input = feed(child, 1 + Math.floor(random() * 40));
      // Ctrl-C lands during the append, not before the process has started it: on a loaded
      // machine node alone can take most of a second to get there.
      for (const t0 = Date.now(); !/✓ appended/.test(stderr) && Date.now() - t0 < 20_000; )
        await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, random() * 1200));
      child.kill("SIGINT");
      await new Promise((r) => setTimeout(r, random() * 30));
      input.stop();
      const { code } = await done;
      expect(code, stderr).toBe(130);
      // `✓ appended 0..2 (3 records)` or `✓ appended 5 (1 record)`: both ends included; kept as [start, end).
      const acked = [...stderr.matchAll(/✓ appended (\d+)(?:\.\.(\d+))? \(/g)].map(
        (m) => [Number(m[1]), Number(m[2] ?? m[1]) + 1] as const,
      );
      const lastEnd = acked.length > 0 ? acked[acked.length - 1]![1] : 0;
      expect(stderr).toMatch(/interrupted: /);
      if (acked.length > 0) expect(stderr).toContain(`(next position ${lastEnd})`);
      const r = await d.svc(["read", uri, "-s", "0", "-e"]);
      expect(r.code, r.stderr).toBe(0);
      const stored = r.stdout === "" ? [] : r.stdout.slice(0, -1).split("\n");
      expect(stored).toEqual(input.lines.slice(0, stored.length));
      expect(stored.length).toBeGreaterThanOrEqual(lastEnd);
      for (let k = 1; k < acked.length; k++) expect(acked[k]![0]).toBe(acked[k - 1]![1]);
    }
  }, 120_000);

  it("a second Ctrl-C ends the process at once", async () => {
    const uri = await d.newStream("sigint2");
    const child = d.spawnSvc(["append", uri]);
    const done = closed(child);
    const input = feed(child, 5);
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGINT");
    child.kill("SIGINT");
    const started = Date.now();
    const { code, signal } = await done;
    input.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(code === 130 || signal === "SIGINT").toBe(true);
    const r = await d.svc(["read", uri, "-s", "0", "-e"]);
    const stored = r.stdout === "" ? [] : r.stdout.slice(0, -1).split("\n");
    expect(stored).toEqual(input.lines.slice(0, stored.length));
  });
});
