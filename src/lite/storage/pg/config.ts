/**
 * Where a PostgreSQL storage lives: `--storage postgres://USER[:PASS]@HOST[:PORT]/DB` (or
 * SVC_LITE_STORAGE). Several hosts, libpq style (`HOST1[:PORT1],HOST2[:PORT2]`), name a primary
 * and its standbys: a node connects to whichever of them is writable and moves to another when
 * that one is lost or turns read-only (primary.ts). The one query parameter read is libpq's
 * `target_session_attrs`: `read-write` (also `primary`, the default: lite writes, so a read-only
 * host is of no use to it) or `any` (connect to the first host that answers, unchecked); any
 * other parameter is refused rather than ignored. The password may instead come from PGPASSWORD or a password file (read by
 * the caller's reader, which refuses a file others may read: lite/data-dir.ts); it is kept only in
 * the connection settings and never appears in a message (`redactedUrl`). A password in the URL
 * given with `--storage` is in the process's command line, which every local user can read
 * (/proc/PID/cmdline): lite warns when it starts with one (`passwordOnCommandLine`).
 */
import { clientError } from "../../../errors.js";
import { sessionOptions } from "./session.js";

/** One host of the URL. */
export interface PgHost {
  host: string;
  port: number;
}

export interface PgConfig {
  /** In the URL's order; a node tries them in turn to find the writable one. */
  hosts: PgHost[];
  /** Whether a connection is checked to be writable (`target_session_attrs`, default read-write). */
  requireWritable: boolean;
  user: string;
  password: string | undefined;
  /** The password came in a URL given on the command line, where every local user can read it. */
  passwordOnCommandLine: boolean;
  database: string;
  /** Connections of the write pool (sync reads and LISTEN use one more each). */
  poolSize: number;
  /**
   * How long a write may wait for the database (`--storage-timeout`), connection and
   * statements together (db.ts); reads wait min(5 s, this).
   */
  writeTimeoutMs: number;
  /** lite's schema, once the first connection found it (session.ts): every session's search path. */
  schema?: string;
}

export function isPostgresUrl(s: string): boolean {
  return /^postgres(ql)?:\/\//i.test(s);
}

/** A password file and how to read it (the text of its first line is the password). */
interface PasswordFile {
  path: string;
  read(path: string): string;
}

/**
 * Parses the URL; a password in the URL wins, then the file, then `password` (PGPASSWORD); a
 * user in the URL wins over `user` (PGUSER, else postgres). The caller reads the environment.
 */
export function parsePgUrl(
  text: string,
  opts: {
    passwordFile?: PasswordFile | undefined;
    poolSize: number;
    writeTimeoutMs: number;
    password: string | undefined;
    user: string;
    /** The URL is an argument of the process (not SVC_LITE_STORAGE, which only its user can read). */
    onCommandLine: boolean;
  },
): PgConfig {
  const split = splitHosts(text);
  let url: URL;
  try {
    url = new URL(split.url);
  } catch {
    throw clientError(
      "usage",
      "svc lite: --storage must be postgres://USER@HOST[:PORT][,HOST2[:PORT2]...]/DATABASE (the URL given does not parse)",
    );
  }
  if (!isPostgresUrl(text))
    throw clientError("usage", `svc lite: --storage supports postgres:// URLs only, got ${url.protocol}//…`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (database === "" || url.hostname === "")
    throw clientError("usage", "svc lite: --storage needs a host and a database: postgres://USER@HOST[:PORT]/DATABASE");
  const hosts = [{ host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port === "" ? 5432 : Number(url.port) }];
  for (const extra of split.more) hosts.push(parseHost(extra));
  const requireWritable = sessionAttrs(url.searchParams);
  const passwordInUrl = url.password !== "";
  let password = passwordInUrl ? decodeURIComponent(url.password) : undefined;
  const file = opts.passwordFile;
  if (password === undefined && file !== undefined) password = file.read(file.path).split(/\r?\n/)[0]!;
  if (password === undefined) password = opts.password;
  return {
    hosts,
    requireWritable,
    user: decodeURIComponent(url.username) || opts.user,
    password,
    passwordOnCommandLine: passwordInUrl && opts.onCommandLine,
    database,
    poolSize: opts.poolSize,
    writeTimeoutMs: opts.writeTimeoutMs,
  };
}

/**
 * The URL's host list: `new URL` takes one host, so the others (after the first comma of the
 * authority) are cut out here and parsed one by one.
 */
function splitHosts(text: string): { url: string; more: string[] } {
  const m = /^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)([^/?#]*)(.*)$/is.exec(text);
  if (!m) return { url: text, more: [] };
  const [first, ...more] = m[2]!.split(",");
  return { url: `${m[1]}${first}${m[3]}`, more };
}

function parseHost(text: string): PgHost {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::([0-9]{1,5}))?$/.exec(text);
  const port = m?.[2] === undefined ? 5432 : Number(m[2]);
  if (!m || port < 1 || port > 65535)
    throw clientError("usage", `svc lite: --storage: "${text}" is not a HOST[:PORT] in the URL's host list`);
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
}

/** `target_session_attrs` (the only parameter read); true: connections must be writable. */
function sessionAttrs(params: URLSearchParams): boolean {
  for (const key of params.keys())
    if (key !== "target_session_attrs")
      throw clientError(
        "usage",
        `svc lite: --storage: unknown URL parameter "${key}" (the one lite reads is target_session_attrs)`,
      );
  const attrs = params.get("target_session_attrs") ?? "read-write";
  if (attrs === "read-write" || attrs === "primary") return true;
  if (attrs === "any") return false;
  throw clientError(
    "usage",
    `svc lite: --storage: target_session_attrs=${attrs} cannot serve a writer; use read-write (the default), primary or any`,
  );
}

const hostText = (h: PgHost): string => `${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}`;

/** The URL for messages: never the password. */
export function redactedUrl(c: PgConfig): string {
  return `postgres://${encodeURIComponent(c.user)}@${c.hosts.map(hostText).join(",")}/${encodeURIComponent(c.database)}`;
}

/** One host as messages name it. */
export function hostName(h: PgHost): string {
  return hostText(h);
}

/** How long after its last traffic a connection's TCP keepalive probes start. */
const KEEPALIVE_MS = 5_000;

/**
 * Options for a `pg` client or pool: the session's settings (session.ts: every commit waits for
 * the WAL flush and sync standbys; a fixed search path); a connection is made within `connectMs` (the caller's deadline, which covers its
 * statements too: a fixed connection timeout on top of a statement's added up), and TCP
 * keepalive notices a peer gone away on a connection nothing is sent on.
 */
export function clientOptions(
  c: PgConfig,
  connectMs: number,
  at: PgHost = c.hosts[0]!,
): {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  options: string;
  connectionTimeoutMillis: number;
  keepAlive: boolean;
  keepAliveInitialDelayMillis: number;
} {
  return {
    host: at.host,
    port: at.port,
    user: c.user,
    database: c.database,
    ...(c.password === undefined ? {} : { password: c.password }),
    options: sessionOptions(c),
    connectionTimeoutMillis: Math.max(1, Math.round(connectMs)),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_MS,
  };
}
