/**
 * Bug (user trial): `first=$(svc read URI -f | head -1)` hung on a quiet stream. `head` exited
 * after the first record, but svc noticed the closed pipe only when it wrote the next record:
 * with one record appended 1 s after the read started and nothing after it, the pipeline waited
 * until `timeout` killed svc (without it, for ever). Same for `svc tail -f` of one stream and of
 * several. Reproduced with a bash pipeline as a script writes it.
 *
 * Expected: as `tail -f | head -1` does, svc watches its stdout pipe and ends with exit 0 as
 * soon as the reader is gone, even while it is waiting for records.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { SVC_BIN, tempHome } from "../helpers/cli.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

/**
 * Runs `svc ARGS | head -1` in bash under `timeout 20`, appends one record to `target` after 1 s,
 * and resolves with what head printed, svc's exit code (from PIPESTATUS) and the seconds taken.
 */
function firstLine(args: string[], target: string): Promise<{ line: string; svcCode: number; seconds: number }> {
  const q = (a: string[]) => a.map((x) => `'${x}'`).join(" ");
  const script = `first=$(timeout 20 "${process.execPath}" "${SVC_BIN}" ${q(args)} | head -1; echo "rc=\${PIPESTATUS[0]}" >&2); echo "$first"`;
  const home = tempHome();
  const started = Date.now();
  const child = spawn("bash", ["-c", script], {
    env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: `${home}/.config`, FORCE_COLOR: "0", ...d.env },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
  const appended = new Promise<void>((resolve) =>
    setTimeout(() => {
      void d.svc(["append", target, "-q"], { stdin: "the-one\n" }).then((r) => {
        expect(r.code, r.stderr).toBe(0);
        resolve();
      });
    }, 1000),
  );
  return new Promise((resolve) => {
    child.on("close", () => {
      void appended.then(() => {
        const rc = /rc=(\d+)/.exec(err);
        resolve({ line: out.trim(), svcCode: rc ? Number(rc[1]) : -1, seconds: (Date.now() - started) / 1000 });
      });
    });
  });
}

describe("a follow read into `head -1` ends when head does", () => {
  it("svc read -f", async () => {
    const uri = await d.newStream("read");
    const r = await firstLine(["read", uri, "-f"], uri);
    expect(r.line).toBe("the-one");
    expect(r.svcCode).toBe(0); // 124 when timeout had to kill it
    expect(r.seconds).toBeLessThan(10);
  }, 30_000);

  it("svc tail -f of one stream", async () => {
    const uri = await d.newStream("tail");
    const r = await firstLine(["tail", uri, "-f", "-n", "0"], uri);
    expect(r.line).toBe("the-one");
    expect(r.svcCode).toBe(0);
    expect(r.seconds).toBeLessThan(10);
  }, 30_000);

  it("svc tail -f of several streams", async () => {
    const a = await d.newStream("multi-a");
    const b = await d.newStream("multi-b");
    const r = await firstLine(["tail", a, b, "-f", "-n", "0", "--no-prefix"], b);
    expect(r.line).toBe("the-one");
    expect(r.svcCode).toBe(0);
    expect(r.seconds).toBeLessThan(10);
  }, 30_000);
});
