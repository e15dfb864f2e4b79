/**
 * The one map from a failure thrown by the HTTP stack (node:http, node:http2, undici,
 * node:net, node:tls) to an SvcError, for unary requests and sessions alike:
 * - the server's TLS certificate is not trusted → `tls_untrusted`, not retryable (a retry
 *   meets the same certificate), saying how to proceed;
 * - nothing reached the server (refused, DNS, connect timeout) → `connect_failed` (safe to retry);
 * - an answer in HTTP/2 frames to an HTTP/1.1 request → `not_the_service` (WrongHttpError: the
 *   service speaks both, so this is a server, or a proxy, that speaks HTTP/2 only; nothing retried);
 * - our own deadline fired after sending → `client_timeout` (outcome unknown);
 * - anything else on the socket (reset, closed) → `network` (outcome unknown).
 */
import { clientError, SvcError, WrongHttpError } from "../errors.js";

const CERT_CODES = new Set([
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
]);
const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);

function errorCode(e: unknown): string | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string") return code;
  const cause = (e as { cause?: unknown }).cause;
  return cause !== undefined && cause !== e ? errorCode(cause) : undefined;
}

/** `connected`: the connection was made, so the request may have reached the server. */
export function networkError(
  e: unknown,
  url: string,
  timedOut: boolean,
  timeoutMs: number,
  connected = true,
): SvcError {
  if (e instanceof SvcError) return e;
  const code = errorCode(e);
  const origin = safeOrigin(url);
  const detail = e instanceof Error ? e.message : String(e);
  if (code !== undefined && CERT_CODES.has(code)) {
    return new SvcError({
      code: "tls_untrusted",
      origin: "client",
      retryable: false,
      sideEffects: false,
      cause: e,
      message: `cannot connect to ${origin}: its TLS certificate is not trusted (${detail}, ${code}); use --insecure only for a server you trust, or add its CA with NODE_EXTRA_CA_CERTS`,
    });
  }
  if (code === "HPE_INVALID_CONSTANT" && isHttp2Frame((e as { rawPacket?: unknown }).rawPacket)) {
    return new WrongHttpError(
      `the server at ${origin} does not speak HTTP/1.1, which svc's requests other than sessions need: it answered with HTTP/2 frames; it is not the Stream Storage Service, or a proxy in front of it passes HTTP/2 only`,
      "HTTP/1.1",
      e,
    );
  }
  if (code !== undefined && CONNECT_CODES.has(code)) {
    return clientError("connect_failed", `cannot connect to ${origin} (${code})`, e);
  }
  if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
    if (!connected) return clientError("connect_failed", `cannot connect to ${origin} within ${timeoutMs} ms`, e);
    return clientError("client_timeout", `no response from ${origin} within ${timeoutMs} ms`, e);
  }
  if (!connected)
    return clientError("connect_failed", `cannot connect to ${origin}: ${detail}${code ? ` (${code})` : ""}`, e);
  return clientError("network", `connection to ${origin} failed: ${detail}${code ? ` (${code})` : ""}`, e);
}

/**
 * Whether `bytes` (what a server sent where an HTTP/1.1 status line was due) start with the
 * frame an HTTP/2 server sends first, SETTINGS, or the GOAWAY it sends for a bad preface: a
 * 9-byte frame header of that type on stream 0.
 */
function isHttp2Frame(bytes: unknown): boolean {
  if (!(bytes instanceof Uint8Array) || bytes.length < 9) return false;
  const type = bytes[3];
  const stream = ((bytes[5]! & 0x7f) << 24) | (bytes[6]! << 16) | (bytes[7]! << 8) | bytes[8]!;
  return (type === 0x04 || type === 0x07) && stream === 0;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** An exchange its caller aborted: nothing more is wanted of it, so it is not retried. */
export function aborted(url: string): SvcError {
  return new SvcError({
    code: "interrupted",
    origin: "client",
    retryable: false,
    message: `request to ${url} aborted`,
  });
}
