/**
 * `svc lite`: the durable local server (issue 3).
 *
 *   svc lite [--host ADDR] [--port N] [--data-dir DIR | --in-memory] [--no-auth] [--root-token-file F]
 *            [--cors-origin ORIGIN]... [--init-file SPEC.json]
 *            [--storage postgres://USER@HOST:PORT/DB [--storage-password-file F] [--pool-size N]]
 *
 * Once listening it writes exactly three `export` lines to stdout (endpoints and the root
 * token); every log line goes to stderr. SIGINT/SIGTERM shut it down cleanly: the listener
 * closes, in-flight requests finish, storage is flushed, and runLite resolves.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { clientError } from "../errors.js";
import { Auth } from "./auth/access.js";
import { applyInitFile } from "./init-file.js";
import { acquireLock } from "./lock.js";
import { loadOrCreateRootToken, newToken, readRootTokenFile } from "./root-token.js";
import { DEFAULT_TIMEOUTS, LiteServer } from "./server.js";
import { LmdbStorage } from "./storage/lmdb.js";
import { MemoryStorage } from "./storage/memory.js";
import type { Storage } from "./storage/storage.js";
import { isPostgresUrl, parsePgUrl, redactedUrl, type PgConfig } from "./storage/pg/config.js";
import { Janitor } from "./store/janitor.js";
import { Store } from "./store/store.js";

export interface LiteOptions {
  host: string;
  port: number;
  dataDir: string | undefined;
  auth: boolean;
  /** A root token chosen by the caller (--root-token-file, SVC_LITE_ROOT_TOKEN_FILE). */
  rootTokenFile: string | undefined;
  /** Origins allowed cross-origin while auth is off (--cors-origin). */
  corsOrigins: string[];
  initFile: string | undefined;
  /** Background sweep period (trims, retention, deletions); SVC_LITE_SWEEP_MS overrides. */
  sweepMs: number;
  /** How long deleted streams/basins stay `deleting`; SVC_LITE_DELETE_GRACE_MS overrides. */
  deleteGraceMs: number;
  /** PostgreSQL instead of lmdb (--storage, SVC_LITE_STORAGE): many nodes, one database. */
  postgres: PgConfig | undefined;
  help: boolean;
}

export const USAGE = `Usage: svc lite [--host ADDR] [--port N] [--data-dir DIR | --in-memory] [--no-auth] [--init-file SPEC.json]

Runs a durable local Stream Storage Service on one port (HTTP/1.1 and h2c).

  --host ADDR          listen address (default 127.0.0.1)
  --port N             listen port (default ${4243}; 0 picks a free port)
  --data-dir DIR       where data lives (default $XDG_DATA_HOME/svc/lite, else ~/.local/share/svc/lite)
  --in-memory          keep nothing on disk
  --no-auth            accept any bearer token (cross-origin requests only from --cors-origin)
  --root-token-file F  use the root token in file F instead of generating one (also SVC_LITE_ROOT_TOKEN_FILE)
  --cors-origin ORIGIN with --no-auth, let this origin (e.g. http://localhost:5173) call lite from a browser; repeatable
  --init-file FILE     apply an \`svc apply\` spec at start (also SVC_LITE_INIT_FILE)
  --storage URL        postgres://USER@HOST[:PORT]/DB: keep everything in PostgreSQL, shared by any
                       number of nodes (also SVC_LITE_STORAGE); the password from the URL,
                       --storage-password-file F, or PGPASSWORD
  --pool-size N        PostgreSQL connections for writes (default 10)

Every request needs a bearer token (the root token, or one issued with \`svc token create\`)
unless --no-auth; GET /health is open.
Prints three export lines (endpoints and the root token) on stdout once listening; logs go to stderr.

Examples:
  svc lite                                   # durable, on 127.0.0.1:${4243}
  svc lite --port 0 --in-memory              # throwaway, on a free port
  svc lite --root-token-file ./ci-token      # CI chooses the root token
  svc lite --no-auth --cors-origin http://localhost:5173   # open, for one local web app
`;

export const DEFAULT_PORT = 4243;

export function defaultDataDir(env = process.env): string {
  const base = env.XDG_DATA_HOME && env.XDG_DATA_HOME !== "" ? env.XDG_DATA_HOME : join(homedir(), ".local", "share");
  return join(base, "svc", "lite");
}

export function parseLiteArgs(argv: string[], env = process.env): LiteOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "data-dir": { type: "string" },
        "in-memory": { type: "boolean" },
        "no-auth": { type: "boolean" },
        "root-token-file": { type: "string" },
        "cors-origin": { type: "string", multiple: true },
        "init-file": { type: "string" },
        storage: { type: "string" },
        "storage-password-file": { type: "string" },
        "pool-size": { type: "string" },
        // The export lines are always printed; accepted for scripts written against the plan.
        "print-env": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    throw clientError("usage", `svc lite: ${(e as Error).message}`);
  }
  if (values["in-memory"] && values["data-dir"] !== undefined) throw clientError("usage", "svc lite: --data-dir and --in-memory cannot be used together");
  const storageUrl = values.storage ?? (env.SVC_LITE_STORAGE || undefined);
  let postgres: PgConfig | undefined;
  if (storageUrl !== undefined) {
    if (!isPostgresUrl(storageUrl)) throw clientError("usage", "svc lite: --storage must be a postgres://USER@HOST[:PORT]/DATABASE URL");
    if (values["in-memory"] || values["data-dir"] !== undefined) throw clientError("usage", "svc lite: --storage cannot be used with --data-dir or --in-memory");
    const poolText = values["pool-size"] ?? "10";
    const poolSize = Number(poolText);
    if (!/^\d+$/.test(poolText) || poolSize < 1 || poolSize > 1000) throw clientError("usage", `svc lite: --pool-size must be 1..1000, got ${JSON.stringify(poolText)}`);
    postgres = parsePgUrl(storageUrl, { passwordFile: values["storage-password-file"] ?? (env.SVC_LITE_STORAGE_PASSWORD_FILE || undefined), poolSize, env });
  }
  const portText = values.port ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw clientError("usage", `svc lite: --port must be 0..65535, got ${JSON.stringify(portText)}`);

  return {
    host: values.host ?? "127.0.0.1",
    port,
    dataDir: values["in-memory"] || postgres ? undefined : resolve(values["data-dir"] ?? defaultDataDir(env)),
    auth: !values["no-auth"],
    rootTokenFile: values["root-token-file"] ?? (env.SVC_LITE_ROOT_TOKEN_FILE || undefined),
    corsOrigins: values["cors-origin"] ?? [],
    initFile: values["init-file"] ?? (env.SVC_LITE_INIT_FILE || undefined),
    sweepMs: envMs(env.SVC_LITE_SWEEP_MS, 2000) || 2000,
    deleteGraceMs: envMs(env.SVC_LITE_DELETE_GRACE_MS, 1000),
    postgres,
    help: values.help ?? false,
  };
}

/** Test knobs read from the environment: a non-negative integer of ms, else the default. */
function envMs(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== "" && Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}

function log(message: string): void {
  process.stderr.write(`svc lite: ${message}\n`);
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolvePromise) => {
    const on = (sig: NodeJS.Signals): void => {
      process.removeListener("SIGINT", on);
      process.removeListener("SIGTERM", on);
      // A second signal during shutdown means "now".
      const force = (): never => { log("forced exit"); process.exit(130); };
      process.once("SIGINT", force);
      process.once("SIGTERM", force);
      resolvePromise(sig);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

export interface RunningLite {
  url: string;
  port: number;
  rootToken: string;
  /** Graceful stop: listener, in-flight requests, background work, storage flush, lock. */
  close(): Promise<void>;
}

/** Starts a server (no signal handling, no stdout): runLite and in-process tests use it. */
export async function openLite(opts: LiteOptions): Promise<RunningLite> {
  let storage: Storage;
  let rootToken: string;
  let lock: { release: () => Promise<void> } | undefined;
  const chosen = opts.rootTokenFile === undefined ? undefined : readRootTokenFile(opts.rootTokenFile);
  if (opts.postgres) {
    const { PgStorage } = await import("./storage/pg/postgres.js");
    const pg = await PgStorage.open(opts.postgres, log, envMs(process.env.SVC_LITE_PG_POLL_MS, 1000) || 1000);
    storage = pg;
    rootToken = chosen ?? await pg.sharedRootToken(newToken());
  } else if (opts.dataDir === undefined) {
    storage = new MemoryStorage();
    rootToken = chosen ?? newToken();
  } else {
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    lock = await acquireLock(opts.dataDir);
    rootToken = chosen ?? loadOrCreateRootToken(opts.dataDir);
    storage = new LmdbStorage(join(opts.dataDir, "data.mdb"));
  }
  const store = new Store(storage, log);
  const janitor = new Janitor(store, opts.sweepMs, log, opts.deleteGraceMs);
  const auth = new Auth({ rootToken, enabled: opts.auth }, storage);
  const timeouts = {
    headersMs: envMs(process.env.SVC_LITE_HEADERS_TIMEOUT_MS, DEFAULT_TIMEOUTS.headersMs) || DEFAULT_TIMEOUTS.headersMs,
    idleMs: envMs(process.env.SVC_LITE_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUTS.idleMs) || DEFAULT_TIMEOUTS.idleMs,
  };
  const server = new LiteServer({ store, auth, cors: { origins: opts.corsOrigins }, log, timeouts });
  const close = async (): Promise<void> => {
    await server.close();
    await janitor.stop();
    await store.drain();
    await storage.close();
    await lock?.release();
  };
  try {
    if (opts.initFile) for (const line of await applyInitFile(store, opts.initFile)) log(`init file: ${line}`);
    janitor.start();
    const addr = await server.listen(opts.host, opts.port);
    return { url: `http://${urlHost(opts.host)}:${addr.port}`, port: addr.port, rootToken, close };
  } catch (e) {
    await close();
    throw e;
  }
}

export async function runLite(argv: string[]): Promise<void> {
  const opts = parseLiteArgs(argv);
  if (opts.help) {
    process.stdout.write(USAGE);
    return;
  }
  // A server must not die of one request's stray rejection: log it loudly and keep serving.
  process.on("unhandledRejection", (reason) => log(`internal error (unhandled rejection): ${(reason as Error)?.stack ?? reason}`));
  const lite = await openLite(opts);
  // Handlers go in before the export lines: a parent may signal as soon as it reads them.
  const signal = waitForSignal();
  process.stdout.write(`export SVC_ACCOUNT_ENDPOINT=${lite.url}\nexport SVC_BASIN_ENDPOINT=${lite.url}\nexport SVC_ACCESS_TOKEN=${lite.rootToken}\n`);
  log(`listening on ${lite.url} (HTTP/1.1 and h2c); ${opts.postgres ? `data in PostgreSQL at ${redactedUrl(opts.postgres)}` : opts.dataDir ? `data in ${opts.dataDir}` : "in memory, nothing is kept"}`);
  if (!opts.auth) {
    log(`auth is OFF (--no-auth): anyone who can reach ${lite.url} can read, write and delete everything`);
    if (!isLoopback(opts.host)) log(`warning: --no-auth while listening on ${opts.host}, beyond loopback: every host on the network has full access`);
  }
  const sig = await signal;
  log(`${sig}: shutting down`);
  await lite.close();
  log("stopped");
}
