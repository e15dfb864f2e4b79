/**
 * `svc lite`'s options: the one place lite reads its command line and its environment. Each
 * setting is declared in option-table.ts (flag, variable, default, how it reads, its line of
 * help); here they are read, checked together and made into the `LiteOptions` that the server
 * receives as values (no other module of lite reads `process.env`). Kept apart from the server
 * (main.ts) so that the process's main thread, which only parses and relays signals
 * (thread.ts), does not load the server's modules that the server thread loads.
 */
import { isIP } from "node:net";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { nearest } from "../format/suggest.js";
import { localLiteDataDir } from "../local-lite.js";
import { readChosenSecret } from "./data-dir.js";
import { usage } from "./option-readers.js";
import { SETTINGS, type Setting, type SettingName, type SettingValues } from "./option-table.js";
import type { ServerBounds, ServerTimeouts } from "./server.js";
import type { PgTimings } from "./storage/pg/backend.js";
import { type PgConfig, parsePgUrl } from "./storage/pg/config.js";
import type { SelfTiming } from "./tls-cert.js";

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
  /** Background sweep period (trims, retention, deletions). */
  sweepMs: number;
  /** How long deleted streams/basins stay `deleting`. */
  deleteGraceMs: number;
  /** The one location (A13–A15), `--location`, default `local`. */
  location: string;
  /** `--no-metrics` turns the counting off (A10–A12 and /metrics answer 501). */
  metrics: boolean;
  /** How often metrics are written at most. */
  metricsFlushMs: number;
  /** TLS: a self-signed certificate (kept in the data dir, if any: tls-cert.ts), or one from files. */
  tls: { self: true } | { certFile: string; keyFile: string } | undefined;
  /** A self-signed certificate's validity, renewal margin and check period. */
  tlsSelf: SelfTiming;
  /** PostgreSQL instead of lmdb (--storage, SVC_LITE_STORAGE): many nodes, one database. */
  postgres: PgConfig | undefined;
  /** The timings of a node on PostgreSQL. */
  pgTimings: PgTimings;
  /** Slow and idle clients, acks left unread, and heartbeat spacing (server.ts). */
  timeouts: ServerTimeouts;
  /** What one client may hold: answers unsent, streams, connections, read sessions (server.ts). */
  bounds: ServerBounds;
  /** The in-flight append budget all sessions share, bytes (session/append-limits.ts). */
  appendBudgetBytes: number;
  /** Where the server runs: its own thread (thread.ts), or the main thread (profiling). */
  thread: "worker" | "main";
  help: boolean;
}

/** Each setting's value, and where it came from when it was given. */
interface Given {
  values: SettingValues;
  from: Partial<Record<SettingName, "flag" | "env">>;
}

const entries = Object.entries(SETTINGS) as [SettingName, Setting<unknown>][];

/** Reads every setting of the table: the flag, else the variable (unless empty), else the default. */
function readSettings(argv: string[], env: NodeJS.ProcessEnv): Given {
  let flags: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values: flags } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        entries.flatMap(([, s]) =>
          s.flag === undefined
            ? []
            : [
                [
                  s.flag,
                  {
                    type: s.kind === "switch" ? ("boolean" as const) : ("string" as const),
                    ...(s.kind === "list" ? { multiple: true } : {}),
                    ...(s.short ? { short: s.short } : {}),
                  },
                ],
              ],
        ),
      ),
    }));
  } catch (e) {
    throw usage((e as Error).message, flagHint(e));
  }
  const values: Record<string, unknown> = {};
  const from: Given["from"] = {};
  for (const [name, s] of entries) {
    const flag = s.flag === undefined ? undefined : flags[s.flag];
    const text = s.env === undefined || env[s.env] === "" ? undefined : env[s.env];
    if (flag !== undefined) {
      from[name] = "flag";
      const as = `--${s.flag}`;
      values[name] =
        s.kind === "switch"
          ? flag
          : s.kind === "list"
            ? (flag as string[]).map((t) => s.each(t, as))
            : s.read(flag as string, as);
    } else if (text !== undefined && s.kind === "value") {
      from[name] = "env";
      values[name] = s.read(text, s.env!);
    } else values[name] = s.default;
  }
  return { values: values as SettingValues, from };
}

/**
 * For an unknown flag, the nearest of lite's flags by the one did-you-mean rule of svc
 * (format/suggest.ts), as svc's other commands suggest theirs: `--prot` → `--port`. Only the
 * flags `svc lite --help` lists (and --help) are suggested.
 */
function flagHint(e: unknown): string | undefined {
  if ((e as { code?: unknown }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return undefined;
  const word = /'--([^'=]+)/.exec((e as Error).message)?.[1];
  if (word === undefined) return undefined;
  const shown = entries.flatMap(([name, s]) =>
    s.flag !== undefined && (s.doc !== undefined || name === "help") ? [s.flag] : [],
  );
  const best = nearest(word, shown)[0];
  return best === undefined ? undefined : `did you mean --${best}? (\`svc lite --help\` for usage)`;
}

export function parseLiteArgs(argv: string[], env = process.env): LiteOptions {
  const { values: v, from } = readSettings(argv, env);
  if (v.inMemory && v.dataDir !== undefined) throw usage("--data-dir and --in-memory cannot be used together");
  const postgres = storageOption(v, from);
  // A --host given as a name is a name clients use.
  const hostName = from.host !== undefined && isIP(v.host) === 0 ? [v.host.toLowerCase()] : [];
  return {
    host: v.host,
    port: v.port,
    dataDir: v.inMemory || postgres ? undefined : resolve(v.dataDir ?? localLiteDataDir(env)),
    auth: !v.noAuth,
    rootTokenFile: v.rootTokenFile,
    corsOrigins: v.corsOrigins,
    allowHosts: [...v.allowHosts, ...hostName],
    initFile: v.initFile,
    sweepMs: v.sweepMs,
    deleteGraceMs: v.deleteGraceMs,
    location: v.location,
    metrics: !v.noMetrics,
    metricsFlushMs: v.metricsFlushMs,
    tls: tlsOption(v),
    tlsSelf: { validMs: v.tlsSelfValidMs, renewMs: v.tlsSelfRenewMs, checkMs: v.tlsSelfCheckMs },
    postgres,
    pgTimings: {
      pollMs: v.pgPollMs,
      cacheMs: v.pgCacheMs,
      leaseMs: v.sweepLeaseMs,
      migrationWaitMs: v.migrationWaitMs,
    },
    timeouts: {
      headersMs: v.headersMs,
      idleMs: v.idleMs,
      bodyGraceMs: v.bodyGraceMs,
      ackStallMs: v.ackStallMs,
      heartbeatMs: v.heartbeatMs,
    },
    bounds: {
      answerFlushMs: v.answerFlushMs,
      unsentAnswers: v.unsentAnswers,
      h2MaxStreams: v.h2MaxStreams,
      connectionsPerAddress: v.connectionsPerAddress,
      readSessionsPerToken: v.readSessionsPerToken,
      readSessionsPerConnection: v.readSessionsPerConnection,
    },
    appendBudgetBytes: v.appendBudgetBytes,
    thread: v.thread,
    help: v.help,
  };
}

/** --storage (or SVC_LITE_STORAGE) and the flags that go with it. */
function storageOption(v: SettingValues, from: Given["from"]): PgConfig | undefined {
  if (v.storage === undefined) return undefined;
  if (v.inMemory || v.dataDir !== undefined) throw usage("--storage cannot be used with --data-dir or --in-memory");
  const path = v.storagePasswordFile;
  // A secret like the root token file: refused unless it is the user's alone (data-dir.ts).
  const passwordFile =
    path === undefined ? undefined : { path, read: (p: string) => readChosenSecret(p, "--storage-password-file") };
  return parsePgUrl(v.storage, {
    passwordFile,
    poolSize: v.poolSize,
    writeTimeoutMs: v.storageTimeoutMs,
    password: v.pgPassword,
    user: v.pgUser,
    onCommandLine: from.storage === "flag",
  });
}

function tlsOption(v: SettingValues): LiteOptions["tls"] {
  const { tlsCert: certFile, tlsKey: keyFile } = v;
  if (v.tlsSelf && (certFile !== undefined || keyFile !== undefined))
    throw usage("--tls-self and --tls-cert/--tls-key cannot be used together");
  if ((certFile === undefined) !== (keyFile === undefined)) throw usage("--tls-cert and --tls-key go together");
  if (v.tlsSelf) return { self: true };
  return certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : undefined;
}

/** `--name ARG` and its help, wrapped at 100 columns under a 23-column indent. */
function usageLine(s: Setting<unknown>): string {
  const head = `  --${s.flag}${s.arg ? ` ${s.arg}` : ""}`;
  const shown = s.shown ?? (s.kind === "value" && s.default !== undefined ? String(s.default) : undefined);
  const notes = [shown === undefined ? "" : `default ${shown}`, s.env ? `also ${s.env}` : ""].filter((n) => n !== "");
  const help = notes.length === 0 ? s.doc! : `${s.doc} (${notes.join("; ")})`;
  const width = 100 - 23;
  const lines: string[] = [];
  let line = "";
  for (const word of help.split(" ")) {
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

${entries
  .filter(([, s]) => s.flag !== undefined && s.doc !== undefined)
  .map(([, s]) => usageLine(s))
  .join("\n")}

Every request needs a bearer token (the root token, or one issued with \`svc token create\`)
unless --no-auth; GET /health is open.
Prints three export lines (endpoints and the root token) on stdout once listening; logs go to stderr.
Settings without a flag come from the environment: \`svc help server\`, "Environment variables".

Examples:
  svc lite                                   # durable, on ${SETTINGS.host.default}:${SETTINGS.port.default}
  svc lite --port 0 --in-memory              # throwaway, on a free port
  svc lite --root-token-file ./ci-token      # CI chooses the root token
  svc lite --no-auth --cors-origin http://localhost:5173   # open, for one local web app
`;
