/** Starts the built `svc lite` as a child process on port 0 with a fresh data dir, for benches. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../../..");
/** The svc to run; BENCH_LITE_BIN names another build's bin/svc.js (a before/after comparison in one run). */
export const BIN = process.env.BENCH_LITE_BIN ?? join(ROOT, "bin/svc.js");

/**
 * The shared root token of each PostgreSQL database, as the first node started on it printed
 * it: the database keeps only its hash, so later nodes print none and take it from here.
 */
const rootTokens = new Map();
const UNBOUNDED = {
  SVC_LITE_CONNECTIONS_PER_ADDRESS: "1000000",
  SVC_LITE_READ_SESSIONS_PER_TOKEN: "1000000",
  SVC_LITE_READ_SESSIONS_PER_CONNECTION: "1000000",
};
const databaseOf = (url) => {
  const u = new URL(url);
  return `${u.hostname}${u.pathname}`;
};

/** With `--storage postgres://…` among extraArgs no data dir is used; `childEnv` adds to the child's env. */
export async function startBenchLite(extraArgs = [], childEnv = {}) {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-lite-"));
  const data = extraArgs.includes("--storage") ? [] : ["--data-dir", join(dir, "data")];
  // BENCH_LITE_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the server (NODE_OPTIONS may not).
  const nodeArgs = (process.env.BENCH_LITE_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, BIN, "lite", "--port", "0", ...data, ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
    // Benchmarks open thousands of connections and sessions from one address and token: lite's
    // caps against one client holding too much (docs/security.md) are not what they measure.
    env: { ...process.env, ...UNBOUNDED, ...childEnv },
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const env = {};
  try {
    await new Promise((res, rej) => {
      child.stdout.on("data", (d) => {
        out += d;
        // One write carries every export line (the token's only from the node that knows it).
        if (/^export SVC_BASIN_ENDPOINT=\S+\n/m.test(out)) res();
      });
      child.on("exit", (code) => rej(new Error(`svc lite exited ${code}: ${err}`)));
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true }); // a node that never started leaves nothing behind
    throw e;
  }
  for (const m of out.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
  const storage = extraArgs.includes("--storage")
    ? databaseOf(extraArgs[extraArgs.indexOf("--storage") + 1])
    : undefined;
  if (storage !== undefined && env.SVC_ACCESS_TOKEN !== undefined) rootTokens.set(storage, env.SVC_ACCESS_TOKEN);
  if (storage !== undefined) env.SVC_ACCESS_TOKEN ??= rootTokens.get(storage);
  return {
    url: env.SVC_ACCOUNT_ENDPOINT,
    token: env.SVC_ACCESS_TOKEN,
    env,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r() : child.on("close", r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const round = (x, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
