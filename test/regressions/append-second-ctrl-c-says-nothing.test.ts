/**
 * Bug: a second Ctrl-C during `svc append` ended the process at once without a word about what
 * had been acknowledged or what was sent and left without an answer; the user could not tell
 * where to resume from, nor what to check.
 *
 * Now, just before it ends, svc says what is known: the records acknowledged (and the next
 * position), the records in doubt (sent, no answer) with the read that checks them, and the
 * records read and never sent.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";

let d: DataEnv;
let proxy: FaultProxy;
beforeAll(async () => {
  d = await dataEnv();
  proxy = await startFaultProxy(Number(new URL(d.lite.url).port));
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await d?.stop();
});

const closed = (child: ChildProcessWithoutNullStreams) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on("close", (code, signal) => r({ code, signal })),
  );

async function until(done: () => boolean, what: string): Promise<void> {
  for (const t0 = Date.now(); !done(); await new Promise((r) => setTimeout(r, 10)))
    if (Date.now() - t0 > 20_000) throw new Error(`timed out waiting for ${what}`);
}

it("a second Ctrl-C says what was acknowledged and what is in doubt before it ends", async () => {
  const uri = await d.newStream("second-sigint");
  const child = d.spawnSvc([
    "--account-endpoint",
    proxy.url,
    "--basin-endpoint",
    proxy.url,
    "append",
    uri,
    "--acks",
    "text",
    "--transport",
    "session",
  ]);
  const done = closed(child);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  child.stdin.write(Array.from({ length: 10 }, (_, k) => `a-${k}\n`).join(""));
  await until(() => /✓ appended 0\.\.9/.test(stderr), "the first ack");
  proxy.blackHole();
  child.stdin.write(Array.from({ length: 20 }, (_, k) => `b-${k}\n`).join(""));
  child.kill("SIGINT");
  await until(() => /interrupted: /.test(stderr), "the first interrupt's line");
  child.kill("SIGINT");
  const { code, signal } = await done;
  proxy.heal();
  expect(code === 130 || signal === "SIGINT", stderr).toBe(true);
  const last = /interrupted again, quitting at once: (.*)/.exec(stderr)?.[1];
  expect(last, stderr).toContain("acknowledged: 10 records, 0..9 (next position 10)");
  const doubt = Number(/in doubt: (\d+) records?/.exec(last ?? "")?.[1] ?? 0);
  const unsent = Number(/read and not sent: (\d+) records?/.exec(last ?? "")?.[1] ?? 0);
  expect(doubt + unsent, stderr).toBe(20);
  if (doubt > 0) expect(last).toContain(`svc read ${uri} -s 10 -e`);
}, 60_000);
