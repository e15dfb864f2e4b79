/**
 * Bug (found by the CLI-under-faults suite): `svc append` waited forever for an ack
 * that never came once its session had been idle. The append session armed its ack timer
 * only when an ack arrived with more inputs still owed, so an input written to a connection
 * with nothing in flight (the next line after a pause, here after the link went dark) had no
 * bound at all: still running after 20 s with `--timeout 3s`.
 *
 * Now writing to an idle connection starts the bound, and `--ack-timeout` (default: the
 * `--timeout`) ends the run with exit 75 (outcome unknown) instead of a hang.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { SVC_BIN, tempHome } from "../helpers/cli.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";

let d: DataEnv;
let proxy: FaultProxy;

beforeAll(async () => {
  d = await dataEnv();
  proxy = await startFaultProxy(d.lite.port);
});
afterAll(async () => {
  await proxy?.close();
  await d?.stop();
});

for (const flag of [
  ["--ack-timeout", "2s"],
  ["--timeout", "2s"],
]) {
  it(`an ack that never comes after an idle pause ends with exit 75 (${flag.join(" ")})`, async () => {
    const uri = await d.newStream("dark");
    const env = {
      ...process.env,
      HOME: tempHome(),
      ...d.env,
      SVC_ACCOUNT_ENDPOINT: proxy.url,
      SVC_BASIN_ENDPOINT: proxy.url,
    };
    const child = spawn(process.execPath, [SVC_BIN, "append", uri, "--acks", "text", ...flag], {
      env,
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<number | null>((res) => child.on("exit", res));
    child.stdin.write("first\n");
    for (const t0 = Date.now(); !/✓ appended 0 \(1 record\)/.test(stderr) && Date.now() - t0 < 15_000; )
      await new Promise((r) => setTimeout(r, 20));
    expect(stderr).toMatch(/✓ appended 0 \(1 record\)/);
    proxy.blackHole();
    child.stdin.write("second\n");
    child.stdin.end();
    const t0 = Date.now();
    const code = await Promise.race([exited, new Promise<"hang">((res) => setTimeout(() => res("hang"), 15_000))]);
    proxy.heal();
    if (code === "hang") child.kill("SIGKILL");
    expect(code, stderr).toBe(75);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(stderr).toMatch(/no ack arrived within 2000 ms/);
  }, 40_000);
}
