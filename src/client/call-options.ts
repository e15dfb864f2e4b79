/**
 * The options of a client's requests as a user gives them (docs/library.md, "Options and their
 * defaults"): SvcClientOptions extends them, and the Caller takes them with what the client
 * sets up itself (caller.ts CallerOptions).
 */
import type { Dialect } from "../types.js";

export type SessionCompression = "none" | "zstd" | "gzip";

export interface ClientCallOptions {
  /** Per-attempt timeout in ms; for sessions, connect + response headers. @default 30000 */
  timeoutMs?: number;
  /** Retries after the first attempt, for what is safe to retry. @default 2 */
  retries?: number;
  /** Idle bound on an append session's acks. @default timeoutMs */
  ackTimeoutMs?: number;
  /** Skip TLS certificate verification (never on a shared network). @default false */
  insecure?: boolean;
  /** The `user-agent` header. @default "svc" */
  userAgent?: string;
  /** Extra headers sent with every request, unary or session (computed per request). */
  headers?: () => Record<string, string>;
  /** Verbose request log, one line per attempt (never a header, so never the token). */
  log?: (line: string) => void;
  /** Notices a user should see once (a follow read waiting for the server to come back). */
  notice?: (line: string) => void;
  /**
   * Unary HTTP client: node:http (cheap to load in one-shot processes) or undici (long-lived
   * processes; the `undici` package must then be installed beside the client). @default "node"
   */
  httpClient?: "node" | "undici";
  /**
   * Session compression: advertised in Accept-Encoding and used for the client's own frames
   * (`zstd` needs the `@mongodb-js/zstd` package installed beside the client). @default "none"
   */
  compression?: SessionCompression;
  /** The names requests use (`s2`: S2's, for S2-compatible servers). @default "svc" */
  dialect?: Dialect;
}
