/**
 * `svc lite`: the durable local server (issue 3).
 *
 *   svc lite [--host ADDR] [--port N] [--data-dir DIR | --in-memory] [--no-auth] [--root-token-file F]
 *            [--cors-origin ORIGIN]... [--init-file SPEC.json] [--location NAME] [--no-metrics]
 *            [--tls-self | --tls-cert FILE --tls-key FILE]
 *            [--storage postgres://USER@HOST:PORT/DB [--storage-password-file F] [--pool-size N]
 *             [--storage-timeout DURATION]]
 *
 * Once listening it writes exactly three `export` lines to stdout (endpoints and the root
 * token); every log line goes to stderr. SIGINT/SIGTERM shut it down cleanly: the listener
 * closes, in-flight requests finish, storage is flushed, and runLite resolves.
 */
import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { clientError } from "../errors.js";
import { Auth } from "./auth/access.js";
import { parseHumantime } from "./humantime.js";
import { applyInitFile } from "./init-file.js";
import { acquireLock } from "./lock.js";
import { loadOrCreateRootToken, newToken, readRootTokenFile } from "./root-token.js";
import { DEFAULT_TIMEOUTS, LiteServer } from "./server.js";
import { LmdbStorage } from "./storage/lmdb.js";
import { MemoryStorage } from "./storage/memory.js";
import type { Storage } from "./storage/storage.js";
import { DEFAULT_WRITE_TIMEOUT_MS, isPostgresUrl, parsePgUrl, redactedUrl, type PgConfig } from "./storage/pg/config.js";
import { Janitor } from "./store/janitor.js";
import { Store } from "./store/store.js";
import { TEST_FAULT } from "./test-fault.js";
import { LOCATION_NAME } from "./http/locations.js";
import type { LiteMetrics } from "./metrics/lite-metrics.js";
import { ServerStats } from "./metrics/prometheus.js";
import { MetricsRecorder } from "./metrics/recorder.js";
import { fromFiles, selfSigned, type TlsMaterial } from "./tls-cert.js";

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
  /** The one location (A13–A15), `--location`, default `local`. */
  location: string;
  /** `--no-metrics` turns the counting off (A10–A12 and /metrics answer 501). */
  metrics: boolean;
  /** How often metrics are written at most; SVC_LITE_METRICS_FLUSH_MS overrides. */
  metricsFlushMs: number;
  /** TLS (issue 15): a self-signed certificate made at start, or one from files. */
  tls: { self: true } | { certFile: string; keyFile: string } | undefined;
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
  --location NAME      the name of this server's one location (default local)
  --no-metrics         do not count metrics (GET /v1/metrics and /metrics answer 501)
  --tls-self           serve HTTPS with a self-signed certificate made at start (its fingerprint is printed)
  --tls-cert FILE      serve HTTPS with this PEM certificate (with --tls-key)
  --tls-key FILE       the PEM private key of --tls-cert
  --storage URL        postgres://USER@HOST[:PORT]/DB: keep everything in PostgreSQL, shared by any
                       number of nodes (also SVC_LITE_STORAGE); the password from the URL,
                       --storage-password-file F, or PGPASSWORD
  --pool-size N        PostgreSQL connections for writes (default 10)
  --storage-timeout D  how long a PostgreSQL write may take before it fails (default 10s)

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
        location: { type: "string" },
        "no-metrics": { type: "boolean" },
        "tls-self": { type: "boolean" },
        "tls-cert": { type: "string" },
        "tls-key": { type: "string" },
        storage: { type: "string" },
        "storage-password-file": { type: "string" },
        "pool-size": { type: "string" },
        "storage-timeout": { type: "string" },
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
    const timeoutText = values["storage-timeout"];
    const timeoutSecs = timeoutText === undefined ? DEFAULT_WRITE_TIMEOUT_MS / 1000 : parseHumantime(timeoutText);
    if (timeoutSecs === undefined || timeoutSecs < 1 || timeoutSecs > 3600) throw clientError("usage", `svc lite: --storage-timeout must be a duration from 1s to 1h, got ${JSON.stringify(timeoutText)}`);
    postgres = parsePgUrl(storageUrl, { passwordFile: values["storage-password-file"] ?? (env.SVC_LITE_STORAGE_PASSWORD_FILE || undefined), poolSize, writeTimeoutMs: timeoutSecs * 1000, env });
  }
  const portText = values.port ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw clientError("usage", `svc lite: --port must be 0..65535, got ${JSON.stringify(portText)}`);

  const certFile = values["tls-cert"];
  const keyFile = values["tls-key"];
  if (values["tls-self"] && (certFile !== undefined || keyFile !== undefined)) throw clientError("usage", "svc lite: --tls-self and --tls-cert/--tls-key cannot be used together");
  if ((certFile === undefined) !== (keyFile === undefined)) throw clientError("usage", "svc lite: --tls-cert and --tls-key go together");
  const location = values.location ?? "local";
  if (!LOCATION_NAME.test(location)) throw clientError("usage", `svc lite: --location must be 1..64 characters of A-Z a-z 0-9 : . -, got ${JSON.stringify(location)}`);

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
    location,
    metrics: !values["no-metrics"],
    metricsFlushMs: envMs(env.SVC_LITE_METRICS_FLUSH_MS, 10_000) || 10_000,
    tls: values["tls-self"] ? { self: true } : certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : undefined,
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
  /** With TLS: the certificate's SHA-256 fingerprint and whether it was made at start. */
  tls: Pick<TlsMaterial, "fingerprint" | "selfSigned"> | undefined;
  port: number;
  rootToken: string;
  /** Graceful stop: listener, in-flight requests, background work, storage flush, lock. */
  close(): Promise<void>;
}

/**
 * Creates the data dir and checks that it is writable, with a message naming the cause (Node
 * reports a recursive mkdir under a read-only parent as ENOENT, "no such file or directory").
 */
function prepareDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    let at = dir;
    while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
    let code = (e as NodeJS.ErrnoException).code;
    try { accessSync(at, constants.W_OK); } catch (inner) { code = (inner as NodeJS.ErrnoException).code ?? code; }
    const why = code === "EROFS" ? `${at} is on a read-only file system` : code === "EACCES" || code === "EPERM" ? `${at} is not writable (permission denied)` : (e as Error).message;
    throw new Error(`cannot use the data dir ${dir}: ${why}`);
  }
}

/** Starts a server (no signal handling, no stdout): runLite and in-process tests use it. */
export async function openLite(opts: LiteOptions): Promise<RunningLite> {
  const tls = opts.tls === undefined ? undefined : "self" in opts.tls ? selfSigned(opts.host) : fromFiles(opts.tls.certFile, opts.tls.keyFile);
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
    prepareDataDir(opts.dataDir);
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
  let metrics: LiteMetrics | undefined;
  // Metrics are counted per node and kept in its own storage; on a database shared by many
  // nodes they would overwrite each other, so lite on PostgreSQL answers them with 501 for now.
  if (opts.metrics && opts.postgres) log("metrics are off: they are not yet kept on PostgreSQL storage (GET /v1/metrics and /metrics answer 501)");
  if (opts.metrics && !opts.postgres) {
    metrics = { recorder: new MetricsRecorder(storage, opts.metricsFlushMs, log), stats: new ServerStats() };
    store.meters = metrics.recorder;
    const stats = metrics.stats;
    storage.onSync = (seconds) => stats.synced(seconds);
  }
  const server = new LiteServer({ store, auth, cors: { origins: opts.corsOrigins }, log, timeouts, metrics, location: opts.location, tls });
  const close = async (): Promise<void> => {
    await server.close();
    await janitor.stop();
    await store.drain();
    await metrics?.recorder.close();
    await storage.close();
    await lock?.release();
  };
  try {
    if (opts.initFile) for (const line of await applyInitFile(store, opts.initFile)) log(`init file: ${line}`);
    janitor.start();
    metrics?.recorder.start();
    const addr = await server.listen(opts.host, opts.port).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EADDRINUSE") throw e;
      throw clientError("usage", `svc lite: port ${opts.port} on ${opts.host} is already in use (another svc lite?); choose another with --port N, or --port 0 for a free one`);
    });
    const scheme = tls ? "https" : "http";
    const tlsInfo = tls && { fingerprint: tls.fingerprint, selfSigned: tls.selfSigned };
    return { url: `${scheme}://${urlHost(opts.host)}:${addr.port}`, port: addr.port, rootToken, tls: tlsInfo, close };
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
  if (TEST_FAULT) log(`TEST FAULT ACTIVE: ${TEST_FAULT} (SVC_LITE_TEST_FAULT): this server is deliberately broken`);
  if (lite.tls) log(`TLS with ${lite.tls.selfSigned ? "a self-signed certificate made now (clients need --insecure, or to trust it)" : "the certificate given"}; SHA-256 fingerprint ${lite.tls.fingerprint}`);
  log(`listening on ${lite.url} (${lite.tls ? "HTTP/1.1 and HTTP/2 by ALPN" : "HTTP/1.1 and h2c"}); ${opts.postgres ? `data in PostgreSQL at ${redactedUrl(opts.postgres)}` : opts.dataDir ? `data in ${opts.dataDir}` : "in memory, nothing is kept"}`);
  if (!opts.auth) {
    log(`auth is OFF (--no-auth): anyone who can reach ${lite.url} can read, write and delete everything`);
    if (!isLoopback(opts.host)) log(`warning: --no-auth while listening on ${opts.host}, beyond loopback: every host on the network has full access`);
  }
  const sig = await signal;
  log(`${sig}: shutting down`);
  await lite.close();
  log("stopped");
}
