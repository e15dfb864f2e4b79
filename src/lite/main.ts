/**
 * `svc lite`: the durable local server.
 *
 *   svc lite [--host ADDR] [--port N] [--data-dir DIR | --in-memory] [--no-auth] [--root-token-file F]
 *            [--cors-origin ORIGIN]... [--init-file SPEC.json] [--location NAME] [--no-metrics]
 *            [--tls-self | --tls-cert FILE --tls-key FILE]
 *            [--storage postgres://USER@HOST:PORT/DB [--storage-password-file F] [--pool-size N]
 *             [--storage-timeout DURATION]]
 *
 * Once listening it writes exactly three `export` lines to stdout (endpoints and the root
 * token); every log line goes to stderr. SIGINT/SIGTERM shut it down cleanly: the listener
 * closes, in-flight requests finish, storage is flushed, and `serve` resolves. The command
 * (run.ts) runs `serve` in the server thread (thread.ts, server-thread.ts); the flags are options.ts.
 */
import { accessSync, constants, existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { makeDirs } from "../dirs.js";
import { clientError } from "../errors.js";
import { Auth } from "./auth/access.js";
import { sha256Hex } from "./auth/secret.js";
import { checkDataDir } from "./data-dir.js";
import { applyInitFile } from "./init-file.js";
import { acquireLock } from "./lock.js";
import { log, repeatLimited } from "./log.js";
import type { LiteMetrics } from "./metrics/lite-metrics.js";
import { ServerStats } from "./metrics/prometheus.js";
import type { LiteOptions } from "./options.js";
import { loadOrCreateRootToken, newToken, readRootTokenFile } from "./root-token.js";
import { LiteServer } from "./server.js";
import { LmdbBackend } from "./storage/lmdb/backend.js";
import { MemoryBackend } from "./storage/memory.js";
import type { PgBackend } from "./storage/pg/backend.js";
import { redactedUrl } from "./storage/pg/config.js";
import type { Backend } from "./storage/seams.js";
import { Janitor } from "./store/janitor.js";
import { Store } from "./store/store.js";
import { TEST_FAULT } from "./test-fault.js";
import {
  describeTls,
  fromFiles,
  keepRenewed,
  selfSigned,
  selfSignedIn,
  type TlsInfo,
  type TlsMaterial,
} from "./tls-cert.js";

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

interface RunningLite {
  url: string;
  /** With TLS: the certificate's SHA-256 fingerprint, whether it was made at start, where it is kept. */
  tls: TlsInfo | undefined;
  port: number;
  /** undefined on a PostgreSQL node that did not make the shared root token (it keeps its hash only). */
  rootToken: string | undefined;
  /** Graceful stop: listener, in-flight requests, background work, storage flush, lock. */
  close(): Promise<void>;
  /** Runs a whole background sweep now (trims due, retention, deletions); resolves when it ends. */
  sweep(): Promise<void>;
}

/**
 * Creates the data dir and checks that it is writable, with a message naming the cause (Node
 * reports a recursive mkdir under a read-only parent as ENOENT, "no such file or directory").
 */
function prepareDataDir(dir: string): void {
  try {
    makeDirs(dir, 0o700);
    accessSync(dir, constants.W_OK);
  } catch (e) {
    let at = dir;
    while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
    let code = (e as NodeJS.ErrnoException).code;
    try {
      accessSync(at, constants.W_OK);
    } catch (inner) {
      code = (inner as NodeJS.ErrnoException).code ?? code;
    }
    const path = (e as NodeJS.ErrnoException).path ?? dir;
    const why =
      code === "EROFS"
        ? `${at} is on a read-only file system`
        : code === "EACCES" || code === "EPERM"
          ? `${at} is not writable (permission denied)`
          : code === "EEXIST"
            ? `${path} is a file, not a directory`
            : code === "ENOTDIR"
              ? `${dirname(path)} is not a directory`
              : code === "ENOENT"
                ? `cannot create ${path} (no such file or directory)`
                : (e as Error).message;
    throw new Error(`cannot use the data dir ${dir}: ${why}`);
  }
}

/** Where the data lives, the root token, the data dir's lock and the TLS material, ready to serve. */
interface Opened {
  backend: Backend;
  rootToken: string | undefined;
  /** Its SHA-256 (hex), when only that is known (PostgreSQL). */
  rootHash?: string;
  lock: { release: () => Promise<void> } | undefined;
  tls: TlsMaterial | undefined;
}

/**
 * Opens the storage the options name: PostgreSQL, memory, or the data dir (made, checked and
 * locked first; a self-signed certificate is kept there, so it is read or made once locked).
 */
async function openStorage(opts: LiteOptions): Promise<Opened> {
  const chosen = opts.rootTokenFile === undefined ? undefined : readRootTokenFile(opts.rootTokenFile);
  const tls =
    opts.tls === undefined
      ? undefined
      : "self" in opts.tls
        ? opts.dataDir === undefined
          ? selfSigned(opts.host, opts.tlsSelf.validMs)
          : undefined
        : fromFiles(opts.tls.certFile, opts.tls.keyFile);
  if (opts.postgres) {
    const { PgBackend } = await import("./storage/pg/backend.js");
    const pg = await PgBackend.open(opts.postgres, log, opts.pgTimings);
    try {
      return { backend: pg, ...(await sharedRoot(pg, chosen)), lock: undefined, tls };
    } catch (e) {
      await pg.close();
      throw e;
    }
  }
  if (opts.dataDir === undefined)
    return { backend: new MemoryBackend(), rootToken: chosen ?? newToken(), lock: undefined, tls };
  prepareDataDir(opts.dataDir);
  checkDataDir(opts.dataDir);
  const lock = await acquireLock(opts.dataDir);
  try {
    const rootToken = chosen ?? loadOrCreateRootToken(opts.dataDir);
    const kept =
      opts.tls !== undefined && "self" in opts.tls ? selfSignedIn(opts.dataDir, opts.host, opts.tlsSelf) : tls;
    return { backend: new LmdbBackend(join(opts.dataDir, "data.mdb")), rootToken, lock, tls: kept };
  } catch (e) {
    await lock.release();
    throw e;
  }
}

/**
 * The root token of nodes on PostgreSQL: the database keeps its SHA-256, the first node's wins.
 * A node knows the token itself when it chose it (--root-token-file, which must then be the
 * stored one), made it, or found an older database's token and replaced it by its hash.
 */
async function sharedRoot(
  pg: PgBackend,
  chosen: string | undefined,
): Promise<{ rootToken: string | undefined; rootHash: string }> {
  const candidate = chosen ?? newToken();
  const shared = await pg.sharedRootHash(sha256Hex(candidate), sha256Hex);
  if (chosen !== undefined && shared.hash !== sha256Hex(chosen))
    throw clientError(
      "usage",
      "svc lite: --root-token-file holds another root token than the one this database keeps (its SHA-256, in svc_settings): give every node the same token, or rotate the database's (docs/security.md)",
    );
  const known = shared.mine || chosen !== undefined ? candidate : shared.upgraded;
  return { rootToken: known, rootHash: shared.hash };
}

/**
 * Starts a server (no signal handling, no stdout): runLite and in-process tests use it.
 * `clock`: in-process tests move it instead of waiting. It says when the sweep deems trims due,
 * and, on lmdb or in memory, stamps arrivals and judges ages (retention, delete-on-empty) and
 * tokens' expiry.
 */
export async function openLite(opts: LiteOptions, clock?: () => number): Promise<RunningLite> {
  const { backend, rootToken, rootHash, lock, tls } = await openStorage(opts);
  const store = new Store(backend, log, clock);
  const janitor = new Janitor(store, opts.sweepMs, log, opts.deleteGraceMs, clock);
  const auth = new Auth({ rootToken, rootHash, enabled: opts.auth }, store.tokens, () => store.now());
  let metrics: LiteMetrics | undefined;
  if (opts.metrics) {
    // Counted by this node, summed in storage with every node's (one process on lmdb, the database on PostgreSQL).
    metrics = { recorder: store.countMetrics(opts.metricsFlushMs), stats: new ServerStats() };
    const stats = metrics.stats;
    backend.onSync = (seconds) => stats.synced(seconds);
    store.onWentBack = (records) => stats.tailWentBack(records);
    if (backend.kind === "shared") stats.clock = backend.clock;
  }
  // Request errors come at the rate of requests (a full disk refuses every append): repeats are counted.
  const requestLog = repeatLimited(log);
  const server = new LiteServer({
    store,
    auth,
    cors: { origins: opts.corsOrigins, hosts: opts.allowHosts },
    log: requestLog,
    timeouts: opts.timeouts,
    bounds: opts.bounds,
    appendBudgetBytes: opts.appendBudgetBytes,
    metrics,
    location: opts.location,
    tls,
  });
  const renewal = tls?.selfSigned
    ? keepRenewed(
        tls,
        () =>
          opts.dataDir === undefined
            ? selfSigned(opts.host, opts.tlsSelf.validMs)
            : selfSignedIn(opts.dataDir, opts.host, opts.tlsSelf),
        (m) => server.useCertificate(m.cert, m.key),
        log,
        opts.tlsSelf,
      )
    : undefined;
  const close = async (): Promise<void> => {
    renewal?.stop();
    await server.close();
    requestLog.flush();
    await janitor.stop();
    await store.drain();
    await store.close();
    await lock?.release();
  };
  try {
    if (opts.initFile) for (const line of await applyInitFile(store, opts.initFile)) log(`init file: ${line}`);
    janitor.start();
    metrics?.recorder.start();
    const addr = await listen(server, opts);
    const tlsInfo = tls && {
      fingerprint: tls.fingerprint,
      selfSigned: tls.selfSigned,
      certFile: tls.certFile,
      made: tls.made,
    };
    return {
      url: `${tls ? "https" : "http"}://${urlHost(opts.host)}:${addr.port}`,
      port: addr.port,
      rootToken,
      tls: tlsInfo,
      close,
      sweep: () => janitor.sweepNow(),
    };
  } catch (e) {
    await close();
    throw e;
  }
}

function listen(server: LiteServer, opts: LiteOptions): Promise<AddressInfo> {
  return server.listen(opts.host, opts.port).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "EADDRINUSE") throw e;
    throw clientError(
      "usage",
      `svc lite: port ${opts.port} on ${opts.host} is already in use (another svc lite?); choose another with --port N, or --port 0 for a free one`,
    );
  });
}

/**
 * Serves until `signal` settles, then shuts down cleanly: on the main thread (SVC_LITE_THREAD=main)
 * or in the server thread (server-thread.ts), where the main thread relays the signal.
 */
export async function serve(opts: LiteOptions, signal: Promise<NodeJS.Signals>): Promise<void> {
  // A server must not die of one request's stray rejection: log it loudly and keep serving.
  process.on("unhandledRejection", (reason) =>
    log(`internal error (unhandled rejection): ${(reason as Error)?.stack ?? reason}`),
  );
  const lite = await openLite(opts);
  const token = lite.rootToken === undefined ? "" : `export SVC_ACCESS_TOKEN=${lite.rootToken}\n`;
  process.stdout.write(`export SVC_ACCOUNT_ENDPOINT=${lite.url}\nexport SVC_BASIN_ENDPOINT=${lite.url}\n${token}`);
  if (lite.rootToken === undefined)
    log(
      "root token: the one the database keeps (as its SHA-256); the node that made it printed it, and no node can show it since (to know it on every node, give each the same --root-token-file)",
    );
  if (TEST_FAULT) log(`TEST FAULT ACTIVE: ${TEST_FAULT} (SVC_LITE_TEST_FAULT): this server is deliberately broken`);
  if (lite.tls) log(`TLS with ${describeTls(lite.tls)}; SHA-256 fingerprint ${lite.tls.fingerprint}`);
  log(
    `listening on ${lite.url} (${lite.tls ? "HTTP/1.1 and HTTP/2 by ALPN" : "HTTP/1.1 and h2c"}); ${opts.postgres ? `data in PostgreSQL at ${redactedUrl(opts.postgres)}` : opts.dataDir ? `data in ${opts.dataDir}` : "in memory, nothing is kept"}`,
  );
  if (opts.postgres?.passwordOnCommandLine)
    log(
      "warning: the --storage URL carries a password, which every local user can read in this process's command line (/proc/PID/cmdline): give it with --storage-password-file F (mode 0600) or PGPASSWORD instead",
    );
  if (!opts.auth) {
    log(`auth is OFF (--no-auth): anyone who can reach ${lite.url} can read, write and delete everything`);
    if (!isLoopback(opts.host))
      log(
        `warning: --no-auth while listening on ${opts.host}, beyond loopback: every host on the network has full access`,
      );
  }
  const sig = await signal;
  log(`${sig}: shutting down`);
  await lite.close();
  log("stopped");
}
