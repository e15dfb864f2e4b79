/**
 * Runs the BUILT CLI (`node bin/svc.js`) as a child process, the way users and CI run it:
 * FORCE_COLOR=0, no TTY, and a temporary HOME / XDG_CONFIG_HOME / XDG_DATA_HOME so that the
 * user's own config and lite data are never read or touched.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const SVC_BIN = resolve(import.meta.dirname, "../../bin/svc.js");

/** Puts an executable `svc` in `dir` that runs the built bin/svc.js: for shells that look it up on PATH. */
export function svcShim(dir: string): void {
  writeFileSync(join(dir, "svc"), `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`, { mode: 0o755 });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  stdin?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** A home directory to reuse across runs (config files); a fresh one otherwise. */
  home?: string;
}

const homes: string[] = [];

/** A fresh temp home; removed after the test file by removeTempHomes (test/setup.ts). */
export function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), "svc-home-"));
  homes.push(home);
  return home;
}

export function removeTempHomes(): void {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
}

/**
 * What svc inherits from the test's environment. Not NODE_EXTRA_CA_CERTS: svc here talks only to
 * servers on this machine (a test that means a CA passes its own), and a large bundle costs
 * every node start ~70 ms of CPU to load, about half of an `svc --version`.
 */
const INHERITED = ["PATH", "SystemRoot", "TMPDIR", "TEMP", "TMP"];

export function runSvc(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const home = opts.home ?? tempHome();
  // A home made for this run only is removed with it (tests leave nothing in the temp dir).
  const dropHome = (): void => {
    if (opts.home === undefined) rmSync(home, { recursive: true, force: true });
  };
  const env: Record<string, string> = {};
  for (const k of INHERITED) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    FORCE_COLOR: "0",
  });
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`svc ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      dropHome();
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(opts.stdin ?? "");
  });
}
