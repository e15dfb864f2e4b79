/**
 * Maps a failure thrown by the HTTP stack (undici, node:net) to an SvcError:
 * - nothing reached the server (refused, DNS, connect timeout) → `connect_failed` (safe to retry);
 * - our own deadline fired after sending → `timeout` (outcome unknown);
 * - anything else on the socket (reset, closed) → `network` (outcome unknown).
 */
import { SvcError, clientError } from "../errors.js";

const CONNECT_CODES = new Set([
  "ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN",
  "UND_ERR_CONNECT_TIMEOUT", "ERR_TLS_CERT_ALTNAME_INVALID", "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "CERT_HAS_EXPIRED",
]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);

function errorCode(e: unknown): string | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string") return code;
  const cause = (e as { cause?: unknown }).cause;
  return cause !== undefined && cause !== e ? errorCode(cause) : undefined;
}

export function networkError(e: unknown, url: string, timedOut: boolean, timeoutMs: number): SvcError {
  if (e instanceof SvcError) return e;
  const code = errorCode(e);
  const origin = safeOrigin(url);
  if (code !== undefined && CONNECT_CODES.has(code)) {
    return clientError("connect_failed", `cannot connect to ${origin} (${code})`, e);
  }
  if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return clientError("timeout", `no response from ${origin} within ${timeoutMs} ms`, e);
  }
  const detail = e instanceof Error ? e.message : String(e);
  return clientError("network", `connection to ${origin} failed: ${detail}${code ? ` (${code})` : ""}`, e);
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
