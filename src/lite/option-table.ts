/**
 * Every setting of `svc lite`, declared once: its flag (if any), its environment variable (if
 * any), its default, how its text is read, and its line of documentation. options.ts reads them
 * all, from the command line and the environment, in one place and nowhere else in lite;
 * `svc lite --help` lists the flags from here, and docs/server.md's list of environment variables
 * is checked against this table (test/unit/lite/option-table.test.ts).
 *
 * A flag wins over its variable. A variable set to the empty string counts as unset. A value that
 * does not read is a usage error naming the flag or the variable (exit 2), never a silent default.
 */
import { LOCAL_LITE_DATA_DIR_TEXT, LOCAL_LITE_HOST, LOCAL_LITE_PORT } from "../local-lite.js";
import { BOUNDS } from "./option-bounds.js";
import {
  hostName,
  location,
  ms,
  postgresUrl,
  type Read,
  storageTimeout,
  text,
  thread,
  whole,
} from "./option-readers.js";

interface Common {
  /** The command-line flag, without `--`; absent: set in the environment only. */
  flag?: string;
  short?: string;
  /** The placeholder of the flag's value in the usage (`ADDR`). */
  arg?: string;
  /** The environment variable; absent: set on the command line only. */
  env?: string;
  /** The unit of a number (`ms`, `bytes`), for the docs. */
  unit?: string;
  /** The default as people read it, where the value alone does not say it. */
  shown?: string;
  /** Its line in `svc lite --help` and docs/server.md; absent: accepted, not shown. */
  doc?: string;
}

export type Setting<T> = Common &
  (
    | { kind: "switch"; default: T }
    | { kind: "list"; default: T; each: Read<string> }
    | { kind: "value"; default: T; read: Read<T> }
  );

const on = (flag: string, doc?: string): Setting<boolean> => ({ kind: "switch", flag, default: false, doc });
const value = <T>(s: Common & { default: T; read: Read<T> }): Setting<T> => ({ kind: "value", ...s });
const many = (flag: string, arg: string, doc: string, each: Read<string>): Setting<string[]> => ({
  kind: "list",
  flag,
  arg,
  doc,
  default: [],
  each,
});

const DAY_MS = 86_400_000;

/** Optional text: no default. */
const path = (s: Common): Setting<string | undefined> =>
  value<string | undefined>({ ...s, default: undefined, read: text });

/** The settings, in the order `svc lite --help` and docs/server.md list them. */
export const SETTINGS = {
  host: value({ flag: "host", arg: "ADDR", default: LOCAL_LITE_HOST, read: text, doc: "listen address" }),
  port: value({
    flag: "port",
    arg: "N",
    default: LOCAL_LITE_PORT,
    read: whole(0, 65535, "0..65535"),
    doc: "listen port; 0 picks a free port",
  }),
  dataDir: path({ flag: "data-dir", arg: "DIR", shown: LOCAL_LITE_DATA_DIR_TEXT, doc: "where data lives" }),
  inMemory: on("in-memory", "keep nothing on disk"),
  noAuth: on("no-auth", "accept any bearer token (cross-origin requests only from --cors-origin)"),
  rootTokenFile: path({
    flag: "root-token-file",
    arg: "F",
    env: "SVC_LITE_ROOT_TOKEN_FILE",
    doc: "use the root token in file F (mode 600) instead of generating one",
  }),
  corsOrigins: many(
    "cors-origin",
    "ORIGIN",
    "with --no-auth, let this origin (e.g. http://localhost:5173) call lite from a browser; repeatable",
    text,
  ),
  allowHosts: many(
    "allow-host",
    "NAME",
    "with --no-auth, also answer requests for host NAME and its subdomains (only localhost names and IP addresses otherwise, against DNS rebinding); repeatable",
    hostName,
  ),
  initFile: path({
    flag: "init-file",
    arg: "FILE",
    env: "SVC_LITE_INIT_FILE",
    doc: "apply an `svc apply` spec at start",
  }),
  location: value({
    flag: "location",
    arg: "NAME",
    default: "local",
    read: location,
    doc: "the name of this server's one location",
  }),
  noMetrics: on("no-metrics", "do not count metrics (GET /v1/metrics and /metrics answer 501)"),
  tlsSelf: on(
    "tls-self",
    "serve HTTPS with a self-signed certificate, kept in the data dir (tls-self-cert.pem) and reused while valid; its path and fingerprint are printed",
  ),
  tlsCert: path({ flag: "tls-cert", arg: "FILE", doc: "serve HTTPS with this PEM certificate (with --tls-key)" }),
  tlsKey: path({ flag: "tls-key", arg: "FILE", doc: "the PEM private key of --tls-cert" }),
  storage: value<string | undefined>({
    flag: "storage",
    arg: "URL",
    env: "SVC_LITE_STORAGE",
    default: undefined,
    read: postgresUrl,
    doc: "postgres://USER@HOST[:PORT]/DB: keep everything in PostgreSQL, shared by any number of nodes; the password from --storage-password-file F or PGPASSWORD (one in a --storage URL is visible to every local user)",
  }),
  storagePasswordFile: path({
    flag: "storage-password-file",
    arg: "F",
    env: "SVC_LITE_STORAGE_PASSWORD_FILE",
    doc: "the PostgreSQL password: the first line of F, which must be yours alone (mode 0600) or root's and 0640",
  }),
  pgPassword: path({
    env: "PGPASSWORD",
    doc: "the PostgreSQL password, when neither the --storage URL nor --storage-password-file gives one",
  }),
  pgUser: value({
    env: "PGUSER",
    default: "postgres",
    read: text,
    doc: "the PostgreSQL user, when the --storage URL names none",
  }),
  poolSize: value({
    flag: "pool-size",
    arg: "N",
    default: 10,
    read: whole(1, 1000, "1..1000"),
    doc: "PostgreSQL connections for writes",
  }),
  storageTimeoutMs: value({
    flag: "storage-timeout",
    arg: "D",
    default: 10_000,
    shown: "10s",
    read: storageTimeout,
    doc: "how long a request may wait for PostgreSQL, connecting included: a write D, a read min(5s, D)",
  }),
  // The export lines are always printed: --print-env changes nothing, and is accepted so that
  // scripts that pass it keep working.
  printEnv: on("print-env"),
  help: { ...on("help"), short: "h" },

  sweepMs: value({
    env: "SVC_LITE_SWEEP_MS",
    unit: "ms",
    default: 2000,
    read: ms(1),
    doc: "how often the background sweep (trims, retention, deletions) runs; it carries a trim out one period after it first saw it",
  }),
  deleteGraceMs: value({
    env: "SVC_LITE_DELETE_GRACE_MS",
    unit: "ms",
    default: 1000,
    read: ms(0),
    doc: "how long a deleted basin or stream stays `deleting` before the sweep removes it",
  }),
  metricsFlushMs: value({
    env: "SVC_LITE_METRICS_FLUSH_MS",
    unit: "ms",
    default: 10_000,
    read: ms(1),
    doc: "how often the metrics a node counted are written to storage, at most",
  }),
  ...BOUNDS,
  pgPollMs: value({
    env: "SVC_LITE_PG_POLL_MS",
    unit: "ms",
    default: 1000,
    read: ms(1),
    doc: "on PostgreSQL: how often a node polls the tails of the streams it serves, for a notification it missed",
  }),
  pgCacheMs: value({
    env: "SVC_LITE_PG_CACHE_MS",
    unit: "ms",
    default: 1000,
    read: ms(0),
    doc: "on PostgreSQL: how long a node serves a basin, stream or token from its cache, at most",
  }),
  sweepLeaseMs: value({
    env: "SVC_LITE_SWEEP_LEASE_MS",
    unit: "ms",
    default: 3000,
    read: ms(1),
    doc: "on PostgreSQL: the term of the lease by which one node at a time sweeps",
  }),
  migrationWaitMs: value({
    env: "SVC_LITE_PG_MIGRATION_WAIT_MS",
    unit: "ms",
    default: 60_000,
    read: ms(1),
    doc: "on PostgreSQL: how long a starting node waits for the migration lock before it gives up",
  }),
  tlsSelfValidMs: value({
    env: "SVC_LITE_TLS_SELF_VALID_MS",
    unit: "ms",
    default: 365 * DAY_MS,
    shown: "365 days",
    read: ms(1),
    doc: "how long a --tls-self certificate is valid",
  }),
  tlsSelfRenewMs: value({
    env: "SVC_LITE_TLS_SELF_RENEW_MS",
    unit: "ms",
    default: 30 * DAY_MS,
    shown: "30 days",
    read: ms(0),
    doc: "how long before its end a --tls-self certificate is replaced, at start and while lite runs",
  }),
  tlsSelfCheckMs: value({
    env: "SVC_LITE_TLS_SELF_CHECK_MS",
    unit: "ms",
    default: 3_600_000,
    shown: "1 hour",
    read: ms(1),
    doc: "how often a running lite looks whether its --tls-self certificate is due for renewal",
  }),
  thread: value<"worker" | "main">({
    env: "SVC_LITE_THREAD",
    default: "worker",
    read: thread,
    doc: "`main` serves on the process's main thread (profiling, debugging) instead of the server thread",
  }),
};

export type SettingName = keyof typeof SETTINGS;
/** Each setting's value, as read. */
export type SettingValues = { [K in SettingName]: (typeof SETTINGS)[K]["default"] };
