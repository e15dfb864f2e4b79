/**
 * Bytes over HTTP: unary requests with keep-alive, timeouts, retries and error mapping.
 * `createTransport` picks node:http (default; cheap to load) or undici (`client: "undici"`),
 * loading only the one it uses. Sessions live in session.ts (HTTP/2).
 */
import type { Transport, TransportOptions } from "./types.js";

export type { HttpRequest, HttpResponse, PeerChallenge, PeerCheck, Transport, TransportOptions } from "./types.js";
export { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from "./types.js";
export { backoffDelay, shouldRetry, withRetries, BACKOFF_BASE_MS, BACKOFF_MAX_MS } from "./retry.js";
export type { RetryOptions } from "./retry.js";
export { networkError } from "./network-error.js";
export { responseError } from "./response-error.js";

export type HttpClientKind = "node" | "undici";

export async function createTransport(opts: TransportOptions & { client?: HttpClientKind }): Promise<Transport> {
  if (opts.client === "undici") {
    const { HttpTransport } = await import("./http.js");
    return new HttpTransport(opts);
  }
  const { NodeHttpTransport } = await import("./node-http.js");
  return new NodeHttpTransport(opts);
}
