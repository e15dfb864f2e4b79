/**
 * One error type for the whole product: `SvcError`.
 *
 * - `code` is stable (the server catalogue of protocol.md §11.2, or a client code below).
 * - `origin` says who produced it: the server (an HTTP status or a terminal frame) or this
 *   process (bad input, a broken frame, a network failure).
 * - `retryable` says a retry may succeed; `sideEffects` says the failed request may still have
 *   taken effect (so an append must not be re-sent blindly).
 *
 * Subclasses exist only where callers branch on them: condition failures (412) and a read
 * past the tail (416), whose bodies are not ErrorInfo.
 */
import type { StreamPosition } from "./types.js";

export type ErrorOrigin = "server" | "client";

interface ErrorClass {
  status: number;
  retryable: boolean;
  /** The request may have taken effect even though it failed. */
  sideEffects: boolean;
}

/** protocol.md §11.2: the server catalogue. */
export const SERVER_CODES = {
  bad_header: { status: 400, retryable: false, sideEffects: false },
  bad_path: { status: 400, retryable: false, sideEffects: false },
  bad_query: { status: 400, retryable: false, sideEffects: false },
  bad_json: { status: 400, retryable: false, sideEffects: false },
  bad_proto: { status: 400, retryable: false, sideEffects: false },
  bad_frame: { status: 400, retryable: false, sideEffects: false },
  decryption_failed: { status: 400, retryable: false, sideEffects: false },
  authn: { status: 401, retryable: false, sideEffects: false },
  permission_denied: { status: 403, retryable: false, sideEffects: false },
  quota_exhausted: { status: 403, retryable: false, sideEffects: false },
  access_token_not_found: { status: 404, retryable: false, sideEffects: false },
  basin_not_found: { status: 404, retryable: false, sideEffects: false },
  stream_not_found: { status: 404, retryable: false, sideEffects: false },
  request_timeout: { status: 408, retryable: true, sideEffects: true },
  resource_already_exists: { status: 409, retryable: false, sideEffects: false },
  basin_deletion_pending: { status: 409, retryable: false, sideEffects: false },
  stream_deletion_pending: { status: 409, retryable: false, sideEffects: false },
  transaction_conflict: { status: 409, retryable: true, sideEffects: false },
  invalid: { status: 422, retryable: false, sideEffects: false },
  rate_limited: { status: 429, retryable: true, sideEffects: false },
  client_hangup: { status: 499, retryable: false, sideEffects: true },
  other: { status: 500, retryable: true, sideEffects: true },
  storage: { status: 500, retryable: true, sideEffects: true },
  // lite's own: a write refused before it reached the disk, for lack of space (nothing written).
  storage_full: { status: 507, retryable: true, sideEffects: false },
  // lite's own: the database no longer holds records this read delivered (a failover to a
  // standby that lacked them); resuming would splice another history onto what was read.
  stream_tail_went_back: { status: 500, retryable: false, sideEffects: false },
  not_implemented: { status: 501, retryable: false, sideEffects: false },
  hot_server: { status: 502, retryable: true, sideEffects: false },
  unavailable: { status: 503, retryable: true, sideEffects: true },
  server_draining: { status: 503, retryable: true, sideEffects: false },
  upstream_timeout: { status: 504, retryable: true, sideEffects: true },
  // Structured statuses whose bodies are not ErrorInfo (§11.2).
  seq_num_mismatch: { status: 412, retryable: false, sideEffects: false },
  fencing_token_mismatch: { status: 412, retryable: false, sideEffects: false },
  range_not_satisfiable: { status: 416, retryable: false, sideEffects: false },
} as const satisfies Record<string, ErrorClass>;

/** Legacy codes clients should tolerate (§11.3); classified by their status. */
const LEGACY_CODES: Record<string, string> = {
  invalid_argument: "bad_json",
  invalid_stream_config: "invalid",
  deadline_exceeded: "request_timeout",
  timeout: "request_timeout",
  basin_creating: "unavailable",
  stream_exists: "resource_already_exists",
  stream_being_deleted: "stream_deletion_pending",
  internal: "other",
  authz: "permission_denied",
};

/** Codes produced on this side of the wire. */
const CLIENT_CODES = {
  /** Bad flags, arguments or configuration. */
  usage: { status: 0, retryable: false, sideEffects: false },
  /** Bad input data (a malformed line, invalid base64, an oversized record). */
  bad_input: { status: 0, retryable: false, sideEffects: false },
  /** A server at the default address could not prove it is the user's own svc lite; its token was not sent. */
  unverified_server: { status: 0, retryable: false, sideEffects: false },
  /** The server's TLS certificate is not trusted; nothing was sent (a retry meets the same certificate). */
  tls_untrusted: { status: 0, retryable: false, sideEffects: false },
  /** The connection could not be made; nothing was sent. */
  connect_failed: { status: 0, retryable: true, sideEffects: false },
  /** The connection failed after the request was (maybe) sent. */
  network: { status: 0, retryable: true, sideEffects: true },
  /**
   * The client's own deadline ran out: no response or ack in time after a request was sent,
   * or a wait for a state that did not come. Not `timeout`: that is a legacy server code for
   * a 408 (§11.3), an answer the server sent.
   */
  client_timeout: { status: 0, retryable: true, sideEffects: true },
  /** A malformed frame, message or response from the peer. */
  protocol: { status: 0, retryable: false, sideEffects: true },
  /** The operation was interrupted (Ctrl-C). */
  interrupted: { status: 0, retryable: false, sideEffects: true },
  /** An input that a failed session never applied (an earlier input failed first). */
  not_applied: { status: 0, retryable: true, sideEffects: false },
  /** A payload that would decompress past its cap (a server answers 413 for a body, bad_frame in a session). */
  too_large: { status: 0, retryable: false, sideEffects: false },
  /** A number outside the safe integer range, or a value that cannot be represented. */
  out_of_range: { status: 0, retryable: false, sideEffects: false },
  /** Records a read was to deliver were trimmed or expired before it read them (`--fail-on-gap`). */
  records_missing: { status: 0, retryable: false, sideEffects: false },
  /** A consumer's reader lost the name to another reader or a reset: its commits are refused (its fencing token is no longer the consumer's). */
  consumer_taken_over: { status: 0, retryable: false, sideEffects: false },
  /** No consumer of that name keeps a position on the stream. */
  consumer_not_found: { status: 0, retryable: false, sideEffects: false },
} as const satisfies Record<string, ErrorClass>;

export type ServerCode = keyof typeof SERVER_CODES;
export type ClientCode = keyof typeof CLIENT_CODES;

export interface SvcErrorOptions {
  code: string;
  message: string;
  origin: ErrorOrigin;
  status?: number;
  retryable?: boolean;
  sideEffects?: boolean;
  cause?: unknown;
  /** Server hint: `retry-after-ms`. */
  retryAfterMs?: number;
}

export class SvcError extends Error {
  readonly code: string;
  readonly origin: ErrorOrigin;
  /** HTTP status for server errors; undefined for client errors. */
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly sideEffects: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(opts: SvcErrorOptions) {
    super(opts.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "SvcError";
    const known = classify(opts.code, opts.status);
    this.code = opts.code;
    this.origin = opts.origin;
    this.status = opts.status ?? (known && known.status !== 0 ? known.status : undefined);
    this.retryable = opts.retryable ?? known?.retryable ?? false;
    this.sideEffects = opts.sideEffects ?? known?.sideEffects ?? true;
    this.retryAfterMs = opts.retryAfterMs;
  }

  /** The JSON error body a server sends for this error (protocol.md §3.6). */
  toBody(): Record<string, unknown> {
    return { code: this.code, message: this.message };
  }
}

/** 412 `{"seq_num_mismatch": n}`: `expected` is the stream's next position. */
export class SeqNumMismatchError extends SvcError {
  readonly expected: number;
  constructor(expected: number, origin: ErrorOrigin = "server") {
    super({
      code: "seq_num_mismatch",
      message: `sequence number mismatch: the next position is ${expected}`,
      origin,
      status: 412,
    });
    this.name = "SeqNumMismatchError";
    this.expected = expected;
  }
  override toBody(): Record<string, unknown> {
    return { seq_num_mismatch: this.expected };
  }
}

/** 412 `{"fencing_token_mismatch": "..."}`: `expected` is the stream's current token. */
export class FencingTokenMismatchError extends SvcError {
  readonly expected: string;
  constructor(expected: string, origin: ErrorOrigin = "server") {
    super({
      code: "fencing_token_mismatch",
      message: `fencing token mismatch: the current token is ${JSON.stringify(expected)}`,
      origin,
      status: 412,
    });
    this.name = "FencingTokenMismatchError";
    this.expected = expected;
  }
  override toBody(): Record<string, unknown> {
    return { fencing_token_mismatch: this.expected };
  }
}

/** 416 `{"tail": {...}}`: the read start is at or beyond the tail with no way to follow. */
export class RangeNotSatisfiableError extends SvcError {
  readonly tail: StreamPosition;
  constructor(tail: StreamPosition, origin: ErrorOrigin = "server") {
    super({
      code: "range_not_satisfiable",
      // As check-tail shows a tail: `0 @ -` for a stream with no record.
      message: `the read starts beyond the tail (${tail.seqNum} @ ${tail.seqNum === 0 && tail.timestamp === 0 ? "-" : tail.timestamp})`,
      origin,
      status: 416,
    });
    this.name = "RangeNotSatisfiableError";
    this.tail = tail;
  }
  override toBody(): Record<string, unknown> {
    return { tail: { seq_num: this.tail.seqNum, timestamp: this.tail.timestamp } };
  }
}

/**
 * An endpoint that does not speak the HTTP a request needs: HTTP/2 for sessions (it answered
 * the connection preface with something else, an HTTP/1.1 response, or its TLS offered no h2),
 * or HTTP/1.1 for unary calls (it answered with HTTP/2 frames). The service speaks both on one
 * port, so it is another server, or a proxy in front of the service that passes one of them
 * only. Code `not_the_service` (exit 2): nothing reached the service, so nothing is retried
 * and no append is in doubt.
 */
export class WrongHttpError extends SvcError {
  constructor(
    message: string,
    /** What the request needed and the server does not speak. */
    readonly needs: "HTTP/2" | "HTTP/1.1",
    cause?: unknown,
  ) {
    super({ code: "not_the_service", message, origin: "client", retryable: false, sideEffects: false, cause });
    this.name = "WrongHttpError";
  }
}

/** Classification of a code, falling back to its HTTP status for unknown codes (§11.1). */
export function classify(code: string, status?: number): ErrorClass | undefined {
  const c = code as ServerCode;
  if (c in SERVER_CODES) return SERVER_CODES[c];
  if (code in CLIENT_CODES) return CLIENT_CODES[code as ClientCode];
  const legacy = LEGACY_CODES[code];
  if (legacy !== undefined) return SERVER_CODES[legacy as ServerCode];
  if (status === undefined) return undefined;
  return classifyStatus(status);
}

/** How to treat a status whose code is unknown. */
function classifyStatus(status: number): ErrorClass {
  switch (status) {
    case 408:
      return { status, retryable: true, sideEffects: true };
    case 409:
      return { status, retryable: false, sideEffects: false };
    case 429:
      return { status, retryable: true, sideEffects: false };
    case 502:
      return { status, retryable: true, sideEffects: false };
    default:
      if (status >= 500) return { status, retryable: true, sideEffects: true };
      return { status, retryable: false, sideEffects: false };
  }
}

/** A server-side error with a catalogue code. */
export function serverError(code: ServerCode, message: string): SvcError {
  return new SvcError({ code, message, origin: "server", status: SERVER_CODES[code].status });
}

/** A client-side error with a client code. */
export function clientError(code: ClientCode, message: string, cause?: unknown): SvcError {
  return new SvcError({ code, message, origin: "client", cause });
}

/**
 * How a rule (rules/) reports what it judged wrong: the caller turns the message into its own
 * error, so the code and origin are the caller's (lite: a server error; the client: its own).
 * `record` is the record at fault when the fault is one record's: its index in the input, and
 * what is wrong with it said of it alone (`record is …`), for a caller that names it its own way.
 */
export type Fail = (message: string, record?: { index: number; problem: string }) => Error;

export const serverFail =
  (code: ServerCode): Fail =>
  (message) =>
    serverError(code, message);

export const clientFail =
  (code: ClientCode): Fail =>
  (message) =>
    clientError(code, message);

/**
 * Turns a non-2xx status and its JSON body (ErrorInfo, AppendConditionFailed or TailResponse)
 * into an SvcError. Decoding is separate from judging: callers parse the body, this judges it.
 */
export function errorFromResponse(status: number, body: unknown, retryAfterMs?: number): SvcError {
  const obj = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  if (status === 412) {
    if (typeof obj.seq_num_mismatch === "number") return new SeqNumMismatchError(obj.seq_num_mismatch);
    if (typeof obj.fencing_token_mismatch === "string")
      return new FencingTokenMismatchError(obj.fencing_token_mismatch);
  }
  if (status === 416) {
    const tail = obj.tail as Record<string, unknown> | undefined;
    if (tail && typeof tail.seq_num === "number" && typeof tail.timestamp === "number") {
      return new RangeNotSatisfiableError({ seqNum: tail.seq_num, timestamp: tail.timestamp });
    }
  }
  const code = typeof obj.code === "string" && obj.code !== "" ? obj.code : `http_${status}`;
  const message = typeof obj.message === "string" && obj.message !== "" ? obj.message : `HTTP ${status}`;
  const known = code in SERVER_CODES || code in LEGACY_CODES ? classify(code) : classifyStatus(status);
  return new SvcError({
    code,
    message,
    origin: "server",
    status,
    retryable: known?.retryable,
    sideEffects: known?.sideEffects,
    retryAfterMs,
  });
}

/**
 * An optional package the client was asked to use is not installed (the client package
 * declares undici and zstd as optional peers: a program that never uses them installs neither).
 */
export function missingPackage(e: unknown, name: string, asked: string): unknown {
  if ((e as { code?: string })?.code !== "ERR_MODULE_NOT_FOUND" || !String((e as Error).message).includes(`'${name}'`))
    return e;
  return clientError("usage", `${asked} needs the ${name} package, which is not installed: npm install ${name}`, e);
}
