/**
 * `npm run cluster` (scripts/cluster.mjs) as a child process, for the tests that drive it: its
 * stdout (the export lines) and stderr (its own messages, the nodes' and PostgreSQL's logs)
 * are collected; `interrupt()` sends SIGINT (Ctrl-C) and waits, with a deadline, for it to end.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { chmodSync } from "node:fs";
import { resolve } from "node:path";
import { eventually } from "./lite.js";
import { scratchDir } from "./scratch.js";

const SCRIPT = resolve(import.meta.dirname, "../../scripts/cluster.mjs");

/**
 * A temp dir for one run of the script (its TMPDIR), so that what it leaves is told from what
 * other test files' scripts and PostgreSQL pairs make in the run's meanwhile. 0711, as the run's:
 * as root, PostgreSQL runs as its own user and must reach its data dir below it. Removed with
 * the test file's other scratch dirs.
 */
export function clusterTempDir(prefix: string): string {
  const dir = scratchDir(prefix);
  chmodSync(dir, 0o711);
  return dir;
}

export interface ClusterRun {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  /** The export lines' variables, once printed. */
  vars: Record<string, string>;
  /** Resolves with the exit code (or the signal's name) once the script has ended. */
  ended: Promise<number | string>;
  /** Ctrl-C, then the exit code; fails if the script is still running after `ms`. */
  interrupt: (ms?: number) => Promise<number | string>;
}

/** Starts the script with `args`; resolves once it printed its export lines (fails with its stderr if not within 90 s). */
export async function startClusterScript(args: string[], opts: SpawnOptions = {}): Promise<ClusterRun> {
  const child = spawn(process.execPath, [SCRIPT, ...args], { env: process.env, ...opts });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (err += s));
  const ended = new Promise<number | string>((r) => child.on("close", (code, signal) => r(code ?? signal ?? "?")));
  let done = false;
  void ended.then(() => (done = true));
  const interrupt = async (ms = 60_000): Promise<number | string> => {
    if (!done) child.kill("SIGINT");
    const timer = new Promise<string>((r) => setTimeout(() => r("still running"), ms).unref());
    const outcome = await Promise.race([ended, timer]);
    if (outcome === "still running") child.kill("SIGKILL");
    return outcome;
  };
  try {
    await eventually(async () => out.includes("SVC_ACCESS_TOKEN") || done, 90_000);
    if (!out.includes("SVC_ACCESS_TOKEN")) throw new Error("the script ended");
  } catch (e) {
    await interrupt(30_000);
    throw new Error(`${(e as Error).message}: the script printed no export lines; its stderr:\n${err}`);
  }
  const vars = Object.fromEntries([...out.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  return { child, out: () => out, err: () => err, vars, ended, interrupt };
}
