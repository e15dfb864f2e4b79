/**
 * The one error sink: turns any failure into `error: Failed to <op> <uri>: <message>
 * (<status> <code>)`, a `hint:` line, and (with --json) a JSON line on stderr. Returns the exit
 * code from exit-codes.ts. Secrets never appear: tokens live in Redacted wrappers.
 */
import { SvcError, WrongHttpError } from "../errors.js";
import { LOCAL_LITE_ENDPOINT } from "../local-lite.js";
import { ENV_VARS } from "./env-vars.js";
import { exitCodeFor } from "./exit-codes.js";
import { hintOf, OperationError } from "./failure.js";

interface SinkContext {
  json?: boolean;
  tokenSource?: string;
  commandPath?: string;
  /** The endpoint in use and where it came from (`env SVC_ACCOUNT_ENDPOINT`, `default: the local svc lite`…). */
  endpoint?: { url: string; source: string };
  /** The profile in use (`--profile`, SVC_PROFILE), for hints that name a config command. */
  profile?: string;
  /** Whether an encryption key was given (-k, --encryption-key-file, SVC_ENCRYPTION_KEY). */
  encryptionKey?: boolean;
}

export function describeError(e: unknown, ctx: SinkContext = {}): { lines: string[]; code: number; json: unknown } {
  const op = e instanceof OperationError ? e : undefined;
  const err = op ? op.error : e;
  const code = exitCodeFor(err, { idempotent: op?.operation !== "append" });
  const message = err instanceof Error ? err.message : String(err);
  let head: string;
  let tag = "";
  if (err instanceof SvcError) {
    tag = err.status !== undefined ? ` (${err.status} ${err.code})` : err.code === "usage" ? "" : ` (${err.code})`;
  }
  if (op) head = `Failed to ${op.operation}${op.resource ? ` ${op.resource}` : ""}: ${message}${tag}`;
  else head = `${message}${tag}`;
  const lines = [`error: ${head}`];
  const hint = op?.hint ?? hintOf(err) ?? keyHint(err, op, ctx) ?? notFoundHint(err, op) ?? hintFor(err, ctx);
  if (hint) lines.push(`hint: ${hint}`);
  const json = {
    error: {
      status: err instanceof SvcError ? (err.status ?? null) : null,
      code: err instanceof SvcError ? err.code : "error",
      message,
      // The command's name (`check-tail`, `basin create`), which a script can match; the
      // sentence's words ("check tail of") are for the line above.
      ...(op
        ? {
            operation:
              ctx.commandPath && ctx.commandPath !== "svc" ? ctx.commandPath.replace(/^svc /, "") : op.operation,
          }
        : {}),
      ...(op?.resource ? { resource: op.resource } : {}),
      exit_code: code,
    },
  };
  return { lines, code, json };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;
const DNS_CODES = /\b(ENOTFOUND|EAI_AGAIN|EAI_NONAME)\b/;

/** Why a connection failed, in terms of the endpoint actually in use and where it came from. */
function connectHint(err: SvcError, ctx: SinkContext): string {
  const e = ctx.endpoint;
  if (DNS_CODES.test(err.message)) {
    const host = e ? new URL(e.url).hostname : "the endpoint's host";
    return `the host name ${JSON.stringify(host)} does not resolve (DNS)${e ? `; the endpoint ${e.url} comes from ${e.source}` : ""}: check its spelling`;
  }
  if (!e || e.source.startsWith("default")) {
    return `is the server running? With nothing configured svc talks to \`svc lite\` at ${LOCAL_LITE_ENDPOINT}: start it with \`svc lite\`, or set the endpoints (see \`svc config --help\`)`;
  }
  return `is the server at ${e.url} (from ${e.source}) running and reachable? Check the endpoint (\`svc config list\` shows the config file's settings, -v the endpoint in use)`;
}

/** Where an encryption key may come from. */
const KEY_SOURCES = `-k/--encryption-key, --encryption-key-file or ${ENV_VARS.encryption_key}`;

/**
 * A header refused on a stream's records: svc sends no header a user typed there but the
 * encryption key, so it is about the key (an encrypted stream read or written without one, or
 * a key that is not 32 bytes), said in svc's terms rather than the protocol's.
 */
function keyHint(err: unknown, op: OperationError | undefined, ctx: SinkContext): string | undefined {
  if (!(err instanceof SvcError) || err.code !== "bad_header" || !/^svc:\/\/[^/]+\/./.test(op?.resource ?? ""))
    return undefined;
  return ctx.encryptionKey
    ? `check the encryption key given with ${KEY_SOURCES}: the base64 of 32 bytes`
    : `an encrypted stream needs its key: give it with -k KEY, --encryption-key-file FILE or ${ENV_VARS.encryption_key} (the base64 of 32 bytes)`;
}

/**
 * A basin or stream that is not there, in terms of the one named: how to create it, or (for a
 * stream) how to let the basin create streams when they are first written or read.
 */
function notFoundHint(err: unknown, op: OperationError | undefined): string | undefined {
  if (!(err instanceof SvcError) || !op?.resource) return undefined;
  const m = /^svc:\/\/([^/]+)(?:\/(.+))?$/.exec(op.resource);
  if (!m) return undefined;
  const [, basin, stream] = m;
  // Being deleted: it is not coming back; --wait says when it is gone (a new one may then be made).
  if (err.code === "basin_deletion_pending")
    return `basin ${basin} is being deleted: \`svc basin delete ${basin} --wait\` waits until it is gone; then create it again if you need it`;
  if (err.code === "stream_deletion_pending")
    return `${stream === undefined ? "the stream" : op.resource} is being deleted: \`svc stream delete ${stream === undefined ? "URI" : op.resource} --wait\` waits until it is gone; then create it again if you need it`;
  if (err.code === "basin_not_found")
    return `create it with \`svc basin create ${basin}\`, or list the basins with \`svc basin list\``;
  if (err.code !== "stream_not_found" || stream === undefined) return undefined;
  const reads = /^(read|tail|check tail of|get stream|stream info)/.test(op.operation);
  return `create it with \`svc stream create ${op.resource}\`, or let the basin create streams ${reads ? "on read" : "on append"}: \`svc basin reconfigure ${basin} ${reads ? "--create-stream-on-read" : "--create-stream-on-append"}\``;
}

/** An untrusted certificate: the server answered, so whether it runs is not the question. */
function tlsHint(ctx: SinkContext): string {
  const where = ctx.endpoint ? `${ctx.endpoint.url} (from ${ctx.endpoint.source})` : "the endpoint";
  return `the certificate of ${where} is not signed by a CA this machine trusts: add that CA with NODE_EXTRA_CA_CERTS=FILE, or pass --insecure for a server you trust (svc lite --tls-self makes such a certificate)`;
}

/** 401 and 403, in terms of where the token came from, or of its absence. */
function authHint(status: number, ctx: SinkContext): string {
  if (ctx.tokenSource === undefined) {
    const set = [
      "svc",
      ...(ctx.profile !== undefined ? ["--profile", ctx.profile] : []),
      "config set access_token -",
    ].join(" ");
    const lite =
      ctx.endpoint && LOOPBACK.test(new URL(ctx.endpoint.url).hostname)
        ? ` (svc lite prints its root token in its \`export ${ENV_VARS.access_token}=…\` line)`
        : "";
    return `${status === 401 ? "authentication failed" : "permission denied"}: no access token was configured; set ${ENV_VARS.access_token}, --access-token or \`${set}\`${lite}`;
  }
  const from = `the access token from ${ctx.tokenSource}`;
  return status === 401
    ? `authentication failed: check ${from}`
    : `permission denied: check that ${from} allows this operation and resource`;
}

/** A local file or stdout svc could not write: a full disk says what to do. */
function ioHint(err: SvcError): string | undefined {
  const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  const where = err.message.startsWith("cannot write to stdout") ? "stdout goes to" : "the file is on";
  if (code === "ENOSPC" || code === "EDQUOT")
    return `the disk ${where} is full${code === "EDQUOT" ? " (your quota)" : ""}: free some space there, or write elsewhere (the output is incomplete; a read with --checkpoint starts again after the last batch written)`;
  if (code === "EFBIG")
    return "the file is larger than that file system (or `ulimit -f`) allows: write elsewhere, or split the output (--split-dir)";
  return undefined;
}

function hintFor(err: unknown, ctx: SinkContext): string | undefined {
  if (!(err instanceof SvcError)) return undefined;
  const status = err.status;
  switch (err.code) {
    case "usage":
      return `run \`${ctx.commandPath ?? "svc"} --help\` for usage`;
    case "connect_failed":
      return connectHint(err, ctx);
    case "tls_untrusted":
      return tlsHint(ctx);
    case "client_timeout":
      return "the server did not answer in time; raise --timeout or check the server";
    case "unverified_server":
      return ctx.tokenSource === undefined || ctx.tokenSource.startsWith("svc lite's root token")
        ? `if it is your own svc lite started with --in-memory, --data-dir or --root-token-file, use the token and endpoints it printed (its export lines); otherwise another program holds the port`
        : `if it is your own svc lite started with --in-memory, --data-dir or --root-token-file, set its endpoints too (its export lines: ${ENV_VARS.account_endpoint}, ${ENV_VARS.basin_endpoint}); otherwise another program holds the port`;
    case "basin_not_found":
      return "list basins with `svc basin list`";
    case "stream_not_found":
      return "list streams with `svc stream list <basin>`";
    case "resource_already_exists":
      return "use --if-not-exists to succeed when it exists, or --ensure to create or reconfigure";
    case "basin_deletion_pending":
    case "stream_deletion_pending":
      return "it is being deleted: `svc basin delete NAME --wait` (or `svc stream delete URI --wait`) waits until it is gone; then create it again";
    case "range_not_satisfiable": {
      const tail = (err as { tail?: { seqNum: number } }).tail?.seqNum;
      return tail === undefined
        ? "start at or before the tail (`svc check-tail URI`), or add --clamp to start at the tail"
        : `the stream's next position is ${tail}: start at or before it (-s ${tail} waits for the next record), or add --clamp to start at the tail`;
    }
    case "not_implemented":
      return "this server does not implement the operation";
    case "not_the_service": {
      const where = ctx.endpoint ? `${ctx.endpoint.url} (from ${ctx.endpoint.source})` : "the endpoint";
      if (err instanceof WrongHttpError && err.needs === "HTTP/2")
        return `check the endpoint ${where}: svc lite answers HTTP/1.1 and HTTP/2 on one port and prints its endpoints in its \`export\` lines; behind a proxy that passes HTTP/1.1 only, \`svc read\` and \`svc append\` work with --transport unary`;
      if (err instanceof WrongHttpError)
        return `check the endpoint ${where}: svc lite answers HTTP/1.1 and HTTP/2 on one port and prints its endpoints in its \`export\` lines; a proxy in front of the service must pass HTTP/1.1 too`;
      return `${where} answered as another web server, not as the service: check the endpoint (svc lite prints its endpoints in its \`export\` lines)`;
    }
    case "io":
      return ioHint(err);
    case "decryption_failed":
      return "svc sends the key from " + KEY_SOURCES + "; records written with another key need that one";
  }
  if (status === 404 && err.code.startsWith("http_")) {
    const where = ctx.endpoint ? `${ctx.endpoint.url} (from ${ctx.endpoint.source})` : "the endpoint";
    return `the server answered 404 with no service error code: is ${where} a Stream Storage Service endpoint (svc lite, or the service's URL)?`;
  }
  if (status === 401 || status === 403) return authHint(status, ctx);
  return undefined;
}
