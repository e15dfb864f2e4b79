/**
 * Where a PostgreSQL storage lives: `--storage postgres://USER[:PASS]@HOST[:PORT]/DB` (or
 * SVC_LITE_STORAGE). The password may instead come from PGPASSWORD or a password file (read by
 * the caller's reader, which refuses a file others may read: lite/data-dir.ts); it is kept only in
 * the connection settings and never appears in a message (`redactedUrl`). A password in the URL
 * given with `--storage` is in the process's command line, which every local user can read
 * (/proc/PID/cmdline): lite warns when it starts with one (`passwordOnCommandLine`).
 */
import { clientError } from "../../../errors.js";
import { sessionOptions } from "./session.js";

export interface PgConfig {
  host: string;
  port: number;
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
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw clientError(
      "usage",
      "svc lite: --storage must be postgres://USER@HOST[:PORT]/DATABASE (the URL given does not parse)",
    );
  }
  if (!isPostgresUrl(text))
    throw clientError("usage", `svc lite: --storage supports postgres:// URLs only, got ${url.protocol}//…`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (database === "" || url.hostname === "")
    throw clientError("usage", "svc lite: --storage needs a host and a database: postgres://USER@HOST[:PORT]/DATABASE");
  const passwordInUrl = url.password !== "";
  let password = passwordInUrl ? decodeURIComponent(url.password) : undefined;
  const file = opts.passwordFile;
  if (password === undefined && file !== undefined) password = file.read(file.path).split(/\r?\n/)[0]!;
  if (password === undefined) password = opts.password;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port === "" ? 5432 : Number(url.port),
    user: decodeURIComponent(url.username) || opts.user,
    password,
    passwordOnCommandLine: passwordInUrl && opts.onCommandLine,
    database,
    poolSize: opts.poolSize,
    writeTimeoutMs: opts.writeTimeoutMs,
  };
}

/** The URL for messages: never the password. */
export function redactedUrl(c: PgConfig): string {
  const host = c.host.includes(":") ? `[${c.host}]` : c.host;
  return `postgres://${encodeURIComponent(c.user)}@${host}:${c.port}/${encodeURIComponent(c.database)}`;
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
    host: c.host,
    port: c.port,
    user: c.user,
    database: c.database,
    ...(c.password === undefined ? {} : { password: c.password }),
    options: sessionOptions(c),
    connectionTimeoutMillis: Math.max(1, Math.round(connectMs)),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_MS,
  };
}
