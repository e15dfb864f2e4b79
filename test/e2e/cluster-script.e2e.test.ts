/**
 * `npm run cluster -- --nodes 3` (scripts/cluster.mjs), scale-out on one machine from a clone:
 * it starts a PostgreSQL and N svc lite nodes, prints three `export` lines that point svc at all
 * of them, and on Ctrl-C stops every node and the PostgreSQL it started, leaving nothing behind.
 * Run on the embedded PostgreSQL (18) the tests use, and with `--postgres` on PostgreSQL 15, the
 * oldest tested (Debian 12's postgresql-15, which .ci/run installs; skipped without it); and with
 * `--standby`, a failover typed on its stdin.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { clusterTempDir, startClusterScript } from "../helpers/cluster-script.js";
import { freePort } from "../helpers/free-port.js";
import { eventually } from "../helpers/lite.js";

const SCRIPT = resolve(import.meta.dirname, "../../scripts/cluster.mjs");
const PG15 = "/usr/lib/postgresql/15/bin/postgres";
const pg15 = existsSync(PG15) && existsSync("/usr/bin/pg_createcluster") && process.getuid?.() === 0;

/**
 * Runs the script until its export lines, drives svc through them, then Ctrl-C. The nodes take
 * `first` and the ports after it, which another process of the run may take meanwhile: a
 * script that stops because a port is in use is run again on other ports (at most 3 times).
 * `args` is asked per attempt: an attempt that got as far as a database leaves that database
 * keeping its root token, which the next attempt's fresh token would not match.
 */
async function tryCluster(args: (attempt: number) => string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if ((await clusterAttempt(args(attempt), env)) !== "port taken" || attempt === 3) return;
  }
}

async function clusterAttempt(args: string[], env: NodeJS.ProcessEnv): Promise<"port taken" | undefined> {
  const first = await freePort();
  const own = clusterTempDir("cluster-three-tmp-");
  const child = spawn(process.execPath, [SCRIPT, "--nodes", "3", "--port", String(first), ...args], {
    env: { ...process.env, ...env, TMPDIR: own },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
  let ended = false;
  const exited = new Promise<number | null>((r) =>
    child.on("close", (code) => {
      ended = true;
      r(code);
    }),
  );
  try {
    await eventually(async () => out.includes("SVC_ACCESS_TOKEN") || ended, 90_000);
    if (ended && /port \d+ on 127\.0\.0\.1 is already in use/.test(err)) return "port taken";
    if (!out.includes("SVC_ACCESS_TOKEN")) throw new Error(`the script printed no export lines; its stderr:\n${err}`);
    const vars = Object.fromEntries([...out.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    const urls = vars.SVC_ACCOUNT_ENDPOINT!.split(",");
    expect(urls).toEqual([0, 1, 2].map((k) => `http://127.0.0.1:${first + k}`));
    expect(err).toContain("Ctrl-C stops every node");
    const make = await runSvc(["basin", "create", "cluster-basin-01", "--create-stream-on-append"], { env: vars });
    expect(make.code, make.stderr).toBe(0);
    // Each node serves what the others wrote.
    for (const [k, url] of urls.entries()) {
      const one = { ...vars, SVC_ACCOUNT_ENDPOINT: url, SVC_BASIN_ENDPOINT: url };
      const put = await runSvc(["append", "svc://cluster-basin-01/s", `via-${k}`], { env: one });
      expect(put.code, put.stderr).toBe(0);
    }
    const back = await runSvc(["read", "svc://cluster-basin-01/s", "-s", "0", "-e"], { env: vars });
    expect(back.stdout).toBe("via-0\nvia-1\nvia-2\n");
  } finally {
    child.kill("SIGINT");
  }
  expect(await exited).toBe(130);
  expect(err).toContain("stopping the nodes");
  const alive = spawnSync("pgrep", ["-f", `--port ${first} `])
    .stdout.toString()
    .trim();
  expect(alive).toBe("");
  expect(readdirSync(own)).toEqual([]);
  return undefined;
}

describe("npm run cluster", () => {
  it("on the embedded PostgreSQL: three nodes, the export lines, Ctrl-C stops them all", async () => {
    await tryCluster(() => []);
  }, 180_000);

  it("with --standby: a synchronous standby, and a failover typed on stdin kills the primary and promotes it", async () => {
    const first = await freePort();
    const own = clusterTempDir("cluster-standby-tmp-");
    const run = await startClusterScript(["--nodes", "1", "--port", String(first), "--standby"], {
      env: { ...process.env, TMPDIR: own },
    });
    try {
      const m = /primary port (\d+), synchronous standby port (\d+)/.exec(run.err());
      expect(m, run.err()).not.toBeNull();
      expect(run.err()).toContain(
        `both servers: postgres://svc@127.0.0.1:${m![1]},127.0.0.1:${m![2]}/svc?target_session_attrs=read-write`,
      );
      const made = await runSvc(["basin", "create", "standby-basin-01"], { env: run.vars });
      expect(made.code, made.stderr).toBe(0);
      run.child.stdin!.write("failover\n");
      await eventually(async () => run.err().includes(`failover: the standby (port ${m![2]}) is the primary`), 60_000);
      expect(run.err()).toMatch(/^\[primary\] /m);
      expect(run.err()).toMatch(/^\[standby\] .*received promote request/m);
      // The nodes were given both hosts: they find the promoted standby by themselves.
      await eventually(
        async () => (await runSvc(["basin", "create", "standby-basin-02"], { env: run.vars })).code === 0,
        30_000,
      );
      const listed = await runSvc(["basin", "list"], { env: run.vars });
      expect(listed.stdout).toContain("standby-basin-01");
      expect(listed.stdout).toContain("standby-basin-02");
    } finally {
      expect(await run.interrupt()).toBe(130);
    }
    expect(readdirSync(own)).toEqual([]);
  }, 180_000);

  it.skipIf(!pg15)(
    "on PostgreSQL 15 (--postgres), the oldest tested",
    async () => {
      const port = await freePort();
      const name = `svc${process.pid}`;
      const made = spawnSync("pg_createcluster", ["15", name, "-p", String(port), "--", "--auth=trust"]);
      expect(made.status, made.stderr.toString()).toBe(0);
      try {
        const started = spawnSync("pg_ctlcluster", ["15", name, "start"]);
        expect(started.status, started.stderr.toString()).toBe(0);
        await tryCluster((attempt) => ["--postgres", `postgres://postgres@127.0.0.1:${port}/svc${attempt}`], {
          PGPASSWORD: "",
        });
      } finally {
        spawnSync("pg_dropcluster", ["15", name, "--stop"]);
      }
    },
    180_000,
  );
});
