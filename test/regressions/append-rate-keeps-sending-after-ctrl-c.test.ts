/**
 * Bug: Ctrl-C during `svc append --rate N` kept appending what had already been read: the input
 * was read in large chunks (one 256 KiB read is 131,072 short lines), and after the signal
 * every batch of them still went out at the rate (128 s at --rate 1000; hours at --rate 10).
 * The run promised to stop; it kept writing to the stream.
 *
 * Now Ctrl-C sends nothing new: a batch waiting for its turn under --rate is not sent, svc
 * waits only for the batches already sent, and the report says what was acknowledged and how
 * many records were read and not sent (exit 130). The stream holds exactly what was acked.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 30_000);
afterAll(async () => {
  await d?.stop();
});

const closed = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((r) => child.on("close", (code) => r(code)));

it("Ctrl-C during append --rate sends nothing more and reports what was read and not sent", async () => {
  const uri = await d.newStream("rate-sigint");
  const child = d.spawnSvc(["append", uri, "--rate", "20", "--max-batch-records", "10", "--acks", "text"]);
  const done = closed(child);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  // 400 lines in one write: 20 s of sending at the rate. stdin stays open, as at a terminal.
  child.stdin.write(Array.from({ length: 400 }, (_, k) => `line-${k}\n`).join(""));
  for (const t0 = Date.now(); !/✓ appended/.test(stderr) && Date.now() - t0 < 20_000; )
    await new Promise((r) => setTimeout(r, 10));
  expect(stderr).toMatch(/✓ appended/);
  child.kill("SIGINT");
  const signalled = Date.now();
  const code = await done;
  expect(code, stderr).toBe(130);
  expect(Date.now() - signalled, stderr).toBeLessThan(5_000);
  const acked = Number(/acknowledged: (\d+) records?/.exec(stderr)?.[1]);
  const unsent = Number(/read and not sent: (\d+) records?/.exec(stderr)?.[1]);
  expect(acked + unsent, stderr).toBe(400);
  expect(unsent).toBeGreaterThan(300);
  const r = await d.svc(["read", uri, "-s", "0", "-e"]);
  expect(r.stdout.split("\n").filter(Boolean).length).toBe(acked);
}, 60_000);
