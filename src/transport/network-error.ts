/**
 * The one map from a failure thrown by the HTTP stack (node:http, node:http2, undici,
 * node:net, node:tls) to an SvcError, for unary requests and sessions alike:
 * - the server's TLS certificate is not trusted → `tls_untrusted`, not retryable (a retry
 *   meets the same certificate), saying how to proceed;
 * - nothing reached the server (refused, DNS, connect timeout) → `connect_failed` (safe to retry);
 * - our own deadline fired after sending → `client_timeout` (outcome unknown);
 * - anything else on the socket (reset, closed) → `network` (outcome unknown).
 */
import { SvcError, clientError } from "../errors.js";

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
