/**
 * `svc lite`'s command line: the options, their parsing and the usage text. Kept apart from the
 * server (main.ts) so that the process's main thread, which only parses and relays signals
 * (thread.ts), does not load the server's modules that the server thread loads.
 */
import { isIP } from "node:net";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { clientError } from "../errors.js";
import { LOCAL_LITE_DATA_DIR_TEXT, LOCAL_LITE_HOST, LOCAL_LITE_PORT, localLiteDataDir } from "../local-lite.js";
import { LOCATION_NAME } from "./http/locations.js";
import { readChosenSecret } from "./data-dir.js";
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

/** One flag of `svc lite`: how it parses (node:util) and the line of usage it gets. */
interface Flag {
  type: "string" | "boolean";
  /** The value's placeholder in the usage (string flags). */
  arg?: string;
  multiple?: boolean;
  short?: string;
  /** Its usage line; undefined: accepted, not shown. */
  help?: string;
}

/** The flags of `svc lite`: the one definition that both the parser and the usage text use. */
const FLAGS: Record<string, Flag> = {
  host: { type: "string", arg: "ADDR", help: `listen address (default ${LOCAL_LITE_HOST})` },
  port: { type: "string", arg: "N", help: `listen port (default ${LOCAL_LITE_PORT}; 0 picks a free port)` },
  "data-dir": { type: "string", arg: "DIR", help: `where data lives (default ${LOCAL_LITE_DATA_DIR_TEXT})` },
  "in-memory": { type: "boolean", help: "keep nothing on disk" },
  "no-auth": { type: "boolean", help: "accept any bearer token (cross-origin requests only from --cors-origin)" },
  "root-token-file": {
    type: "string",
    arg: "F",
    help: "use the root token in file F (mode 600) instead of generating one (also SVC_LITE_ROOT_TOKEN_FILE)",
  },
  "cors-origin": {
    type: "string",
    arg: "ORIGIN",
    multiple: true,
    help: "with --no-auth, let this origin (e.g. http://localhost:5173) call lite from a browser; repeatable",
  },
  "allow-host": {
    type: "string",
    arg: "NAME",
    multiple: true,
    help: "with --no-auth, also answer requests for host NAME and its subdomains (only localhost names and IP addresses otherwise, against DNS rebinding); repeatable",
  },
  "init-file": { type: "string", arg: "FILE", help: "apply an `svc apply` spec at start (also SVC_LITE_INIT_FILE)" },
  location: { type: "string", arg: "NAME", help: "the name of this server's one location (default local)" },
  "no-metrics": { type: "boolean", help: "do not count metrics (GET /v1/metrics and /metrics answer 501)" },
  "tls-self": {
    type: "boolean",
    help: "serve HTTPS with a self-signed certificate, kept in the data dir (tls-self-cert.pem) and reused while valid; its path and fingerprint are printed",
  },
  "tls-cert": { type: "string", arg: "FILE", help: "serve HTTPS with this PEM certificate (with --tls-key)" },
  "tls-key": { type: "string", arg: "FILE", help: "the PEM private key of --tls-cert" },
  storage: {
    type: "string",
    arg: "URL",
    help: "postgres://USER@HOST[:PORT]/DB: keep everything in PostgreSQL, shared by any number of nodes (also SVC_LITE_STORAGE); the password from --storage-password-file F or PGPASSWORD (one in a --storage URL is visible to every local user)",
  },
  "storage-password-file": {
    type: "string",
    arg: "F",
    help: "the PostgreSQL password: the first line of F, which must be yours alone (mode 0600) or root's and 0640",
  },
  "pool-size": { type: "string", arg: "N", help: "PostgreSQL connections for writes (default 10)" },
  "storage-timeout": {
    type: "string",
    arg: "D",
    help: "how long a request may wait for PostgreSQL, connecting included: a write D, a read min(5s, D) (default 10s)",
  },
  // The export lines are always printed: --print-env changes nothing, and is accepted so that
  // scripts that pass it keep working.
  "print-env": { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** `--name ARG` and its help, wrapped at 100 columns under a 23-column indent. */
function usageLine(name: string, f: Flag): string {
  const head = `  --${name}${f.arg ? ` ${f.arg}` : ""}`;
  const width = 100 - 23;
  const lines: string[] = [];
  let line = "";
  for (const word of f.help!.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  const first = head.length < 23 ? `${head.padEnd(23)}${lines[0]}` : `${head}\n${" ".repeat(23)}${lines[0]}`;
  return [first, ...lines.slice(1).map((l) => `${" ".repeat(23)}${l}`)].join("\n");
}

export const USAGE = `Usage: svc lite [--host ADDR] [--port N] [--data-dir DIR | --in-memory] [--no-auth] [--init-file SPEC.json]

Runs a durable local Stream Storage Service on one port (HTTP/1.1 and h2c).

${Object.entries(FLAGS)
  .filter(([, f]) => f.help !== undefined)
  .map(([n, f]) => usageLine(n, f))
  .join("\n")}

Every request needs a bearer token (the root token, or one issued with \`svc token create\`)
unless --no-auth; GET /health is open.
Prints three export lines (endpoints and the root token) on stdout once listening; logs go to stderr.

Examples:
  svc lite                                   # durable, on ${LOCAL_LITE_HOST}:${LOCAL_LITE_PORT}
  svc lite --port 0 --in-memory              # throwaway, on a free port
  svc lite --root-token-file ./ci-token      # CI chooses the root token
  svc lite --no-auth --cors-origin http://localhost:5173   # open, for one local web app
`;

/** The flags as given: strings, switches and lists by name. */
interface Given {
  str(name: string): string | undefined;
  on(name: string): boolean;
  list(name: string): string[];
}

function parseFlags(argv: string[]): Given {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        Object.entries(FLAGS).map(([n, f]) => [
          n,
          { type: f.type, ...(f.multiple ? { multiple: true } : {}), ...(f.short ? { short: f.short } : {}) },
        ]),
      ),
    }));
  } catch (e) {
    throw usage((e as Error).message);
  }
  return {
    str: (n) => values[n] as string | undefined,
    on: (n) => values[n] === true,
    list: (n) => (values[n] as string[] | undefined) ?? [],
  };
}

const usage = (message: string) => clientError("usage", `svc lite: ${message}`);

export function parseLiteArgs(argv: string[], env = process.env): LiteOptions {
  const f = parseFlags(argv);
  if (f.on("in-memory") && f.str("data-dir") !== undefined)
    throw usage("--data-dir and --in-memory cannot be used together");
  const postgres = storageOption(f, env);
  const host = f.str("host");
  const location = f.str("location") ?? "local";
  if (!LOCATION_NAME.test(location))
    throw usage(`--location must be 1..64 characters of A-Z a-z 0-9 : . -, got ${JSON.stringify(location)}`);
  const allowHosts = allowHostsOption(f);
  return {
    host: host ?? LOCAL_LITE_HOST,
    port: portOption(f),
    dataDir: f.on("in-memory") || postgres ? undefined : resolve(f.str("data-dir") ?? localLiteDataDir(env)),
    auth: !f.on("no-auth"),
    rootTokenFile: f.str("root-token-file") ?? (env.SVC_LITE_ROOT_TOKEN_FILE || undefined),
    corsOrigins: f.list("cors-origin"),
    // A --host given as a name is a name clients use.
    allowHosts: host !== undefined && isIP(host) === 0 ? [...allowHosts, host.toLowerCase()] : allowHosts,
    initFile: f.str("init-file") ?? (env.SVC_LITE_INIT_FILE || undefined),
    sweepMs: envMs(env.SVC_LITE_SWEEP_MS, 2000) || 2000,
    deleteGraceMs: envMs(env.SVC_LITE_DELETE_GRACE_MS, 1000),
    location,
    metrics: !f.on("no-metrics"),
    metricsFlushMs: envMs(env.SVC_LITE_METRICS_FLUSH_MS, 10_000) || 10_000,
    tls: tlsOption(f),
    postgres,
    help: f.on("help"),
  };
}

function portOption(f: Given): number {
  const text = f.str("port") ?? String(LOCAL_LITE_PORT);
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw usage(`--port must be 0..65535, got ${JSON.stringify(text)}`);
  return port;
}

/** --storage (or SVC_LITE_STORAGE) and the flags that go with it. */
function storageOption(f: Given, env: NodeJS.ProcessEnv): PgConfig | undefined {
  const onCommandLine = f.str("storage") !== undefined;
  const url = f.str("storage") ?? (env.SVC_LITE_STORAGE || undefined);
  if (url === undefined) return undefined;
  if (!isPostgresUrl(url)) throw usage("--storage must be a postgres://USER@HOST[:PORT]/DATABASE URL");
  if (f.on("in-memory") || f.str("data-dir") !== undefined)
    throw usage("--storage cannot be used with --data-dir or --in-memory");
  const poolText = f.str("pool-size") ?? "10";
  const poolSize = Number(poolText);
  if (!/^\d+$/.test(poolText) || poolSize < 1 || poolSize > 1000)
    throw usage(`--pool-size must be 1..1000, got ${JSON.stringify(poolText)}`);
  const timeoutText = f.str("storage-timeout");
  const timeoutSecs = timeoutText === undefined ? DEFAULT_WRITE_TIMEOUT_MS / 1000 : parseHumantime(timeoutText);
  if (timeoutSecs === undefined || timeoutSecs < 1 || timeoutSecs > 3600)
    throw usage(`--storage-timeout must be a duration from 1s to 1h, got ${JSON.stringify(timeoutText)}`);
  const path = f.str("storage-password-file") ?? (env.SVC_LITE_STORAGE_PASSWORD_FILE || undefined);
  // A secret like the root token file: refused unless it is the user's alone (data-dir.ts).
  const passwordFile =
    path === undefined ? undefined : { path, read: (p: string) => readChosenSecret(p, "--storage-password-file") };
  return parsePgUrl(url, { passwordFile, poolSize, writeTimeoutMs: timeoutSecs * 1000, env, onCommandLine });
}

function tlsOption(f: Given): LiteOptions["tls"] {
  const certFile = f.str("tls-cert");
  const keyFile = f.str("tls-key");
  if (f.on("tls-self") && (certFile !== undefined || keyFile !== undefined))
    throw usage("--tls-self and --tls-cert/--tls-key cannot be used together");
  if ((certFile === undefined) !== (keyFile === undefined)) throw usage("--tls-cert and --tls-key go together");
  if (f.on("tls-self")) return { self: true };
  return certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : undefined;
}

function allowHostsOption(f: Given): string[] {
  const hosts = f.list("allow-host").map((h) => h.toLowerCase());
  for (const h of hosts) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(h))
      throw usage(
        `--allow-host takes a host name without port or scheme (e.g. lite.internal), got ${JSON.stringify(h)}`,
      );
  }
  return hosts;
}

/** Test knobs read from the environment: a non-negative integer of ms, else the default. */
export function envMs(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== "" && Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}
