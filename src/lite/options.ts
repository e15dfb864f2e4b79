/**
 * `svc lite`'s command line: the options, their parsing and the usage text. Kept apart from the
 * server (main.ts) so that the process's main thread, which only parses and relays signals
 * (thread.ts), does not load the server's modules that the server thread loads.
 */
import { isIP } from "node:net";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { clientError } from "../errors.js";
import { LOCATION_NAME } from "./http/locations.js";
import { parseHumantime } from "./humantime.js";
import { DEFAULT_WRITE_TIMEOUT_MS, isPostgresUrl, parsePgUrl, type PgConfig } from "./storage/pg/config.js";

export interface LiteOptions {
  host: string;
  port: number;
  dataDir: string | undefined;
  auth: boolean;
  /** A root token chosen by the caller (--root-token-file, SVC_LITE_ROOT_TOKEN_FILE). */
  rootTokenFile: string | undefined;
  /** Origins allowed cross-origin while auth is off (--cors-origin). */
  corsOrigins: string[];
  /** Host names (and their subdomains) lite answers to while auth is off, beyond loopback names and IPs (--allow-host, a --host name). */
  allowHosts: string[];
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
  /** TLS: a self-signed certificate (kept in the data dir, if any: tls-cert.ts), or one from files. */
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
  --allow-host NAME    with --no-auth, also answer requests for host NAME and its subdomains (only localhost
                       names and IP addresses otherwise, against DNS rebinding); repeatable
  --init-file FILE     apply an \`svc apply\` spec at start (also SVC_LITE_INIT_FILE)
  --location NAME      the name of this server's one location (default local)
  --no-metrics         do not count metrics (GET /v1/metrics and /metrics answer 501)
  --tls-self           serve HTTPS with a self-signed certificate, kept in the data dir (tls-self-cert.pem)
                       and reused while valid; its path and fingerprint are printed
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
        "allow-host": { type: "string", multiple: true },
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
  const allowHosts = (values["allow-host"] ?? []).map((h) => h.toLowerCase());
  for (const h of allowHosts) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(h)) throw clientError("usage", `svc lite: --allow-host takes a host name without port or scheme (e.g. lite.internal), got ${JSON.stringify(h)}`);
  }
  const location = values.location ?? "local";
  if (!LOCATION_NAME.test(location)) throw clientError("usage", `svc lite: --location must be 1..64 characters of A-Z a-z 0-9 : . -, got ${JSON.stringify(location)}`);

  return {
    host: values.host ?? "127.0.0.1",
    port,
    dataDir: values["in-memory"] || postgres ? undefined : resolve(values["data-dir"] ?? defaultDataDir(env)),
    auth: !values["no-auth"],
    rootTokenFile: values["root-token-file"] ?? (env.SVC_LITE_ROOT_TOKEN_FILE || undefined),
    corsOrigins: values["cors-origin"] ?? [],
    // A --host given as a name is a name clients use.
    allowHosts: values.host !== undefined && isIP(values.host) === 0 ? [...allowHosts, values.host.toLowerCase()] : allowHosts,
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
export function envMs(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== "" && Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}
