/**
 * CLI memory (L7 of docs/design/reliability.md, "Load"): `svc append` of 256 MiB from stdin and
 * `svc read` of it to /dev/null each stay under 150 MiB peak RSS, because input is streamed,
 * in-flight bytes are bounded and output waits for the pipe. Peak RSS is measured by /usr/bin/time
 * (or /proc). Size: CLI_MEMORY_MIB (default 256).
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { SVC_BIN, tempHome } from "../helpers/cli.js";

const SIZE_MIB = Number(process.env.CLI_MEMORY_MIB ?? 256);
const LIMIT_MIB = 150;
const TIME = "/usr/bin/time";

let d: DataEnv;
let uri: string;
beforeAll(async () => {
  d = await dataEnv();
  uri = await d.newStream("mem");
});
afterAll(async () => {
  await d?.stop();
});

interface Measured {
  code: number | null;
  peakMiB: number;
  stderr: string;
  seconds: number;
}

/** Runs svc with a stdin feeder and stdout target, measuring the child's peak RSS. */
function measure(
  args: string[],
  stdout: "devnull" | "pipe",
  feed?: (w: NodeJS.WritableStream) => Promise<void>,
): Promise<Measured & { out: string }> {
  const home = tempHome();
  const useTime = existsSync(TIME);
  const cmd = useTime ? TIME : process.execPath;
  const argv = useTime ? ["-f", "MAXRSS_KB=%M", process.execPath, SVC_BIN, ...args] : [SVC_BIN, ...args];
  const devnull = stdout === "devnull" ? openSync("/dev/null", "w") : undefined;
  const started = Date.now();
  const child = spawn(cmd, argv, {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, "data"),
      FORCE_COLOR: "0",
      ...d.env,
    },
    stdio: ["pipe", devnull ?? "pipe", "pipe"],
  });
  let stderr = "";
  let out = "";
  let sampled = 0;
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  child.stdout?.setEncoding("utf8").on("data", (s: string) => (out += s));
  const sampler = useTime
    ? undefined
    : setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
          if (m) sampled = Math.max(sampled, Number(m[1]));
        } catch {
          /* exited */
        }
      }, 50);
  if (feed) void feed(child.stdin!).then(() => child.stdin!.end());
  else child.stdin!.end();
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearInterval(sampler);
      if (devnull !== undefined) closeSync(devnull);
      const m = /MAXRSS_KB=(\d+)/.exec(stderr);
      const kb = m ? Number(m[1]) : sampled;
      resolve({
        code,
        peakMiB: kb / 1024,
        stderr: stderr.replace(/MAXRSS_KB=\d+\n?/, ""),
        seconds: (Date.now() - started) / 1000,
        out,
      });
    }),
  );
}

async function feedLines(w: NodeJS.WritableStream, totalMiB: number): Promise<void> {
  const line = "y".repeat(1023) + "\n";
  const chunk = line.repeat(1024); // 1 MiB
  for (let i = 0; i < totalMiB; i++) {
    if (!w.write(chunk)) await new Promise((r) => w.once("drain", r));
  }
}

describe(`svc append and read of ${SIZE_MIB} MiB`, () => {
  it(`stay under ${LIMIT_MIB} MiB RSS each`, async () => {
    const a = await measure(["append", uri, "-q"], "pipe", (w) => feedLines(w, SIZE_MIB));
    console.log(`append: ${SIZE_MIB} MiB in ${a.seconds.toFixed(1)} s, peak RSS ${a.peakMiB.toFixed(1)} MiB`);
    expect(a.code, a.stderr).toBe(0);
    const tail = await d.svc(["check-tail", uri, "--seq-only"]);
    expect(Number(tail.stdout)).toBe(SIZE_MIB * 1024);
    expect(a.peakMiB).toBeLessThan(LIMIT_MIB);

    const r = await measure(["read", uri, "-s", "0", "-e"], "devnull");
    console.log(`read: ${SIZE_MIB} MiB in ${r.seconds.toFixed(1)} s, peak RSS ${r.peakMiB.toFixed(1)} MiB`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.peakMiB).toBeLessThan(LIMIT_MIB);
  }, 600_000);
});
