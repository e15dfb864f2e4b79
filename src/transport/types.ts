/** The unary transport contract: bytes and statuses in, bytes or an SvcError out. */

export interface HttpRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Safe to re-send after an ambiguous failure. */
  idempotent: boolean;
  /** Aborts the exchange (a long-poll its reader no longer wants): it fails `interrupted`, never retried. */
  signal?: AbortSignal;
  /**
   * A failure to connect (nothing reached the server) is thrown at once instead of retried here:
   * the caller has another node to try first (client/failover.ts), and retries once all have failed.
   */
  moveOnConnectFailure?: boolean;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface Transport {
  /** Resolves with a 2xx response; any other status or failure rejects with an SvcError. */
  request(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export interface TransportOptions {
  /** Per-attempt deadline for the whole exchange, in ms. */
  timeoutMs?: number;
  /** Retries after the first attempt. */
  retries?: number;
  /** Skip TLS certificate verification. */
  insecure?: boolean;
  /** Verbose log sink: one line per attempt (method, URL, status, latency) and per retry. */
  log?: (line: string) => void;
  /** Headers sent with every request (Authorization, User-Agent). Values are never logged. */
  headers?: () => Record<string, string>;
  /** Every new connection's server must pass this before a request goes over it (peer-check.ts). */
  peerCheck?: PeerCheck;
}

export interface PeerChallenge {
  headers: Record<string, string>;
  /** Whether the response headers (lower-case names) prove the server. */
  accept(headers: Record<string, string>): boolean;
}

export interface PeerCheck {
  /** Path of the challenge request (GET). */
  path: string;
  /** A fresh challenge for a connection whose server side is `address:port`. */
  challenge(address: string, port: number): PeerChallenge;
  /** The error for a server that did not prove itself (`origin`: scheme, host and port). */
  refused(origin: string, why: string): Error;
}

/**
 * The most a non-streaming response body may hold: far above any legitimate answer (a unary
 * read returns a few MiB at most), low enough that a server cannot fill svc's memory.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 2;

/** setTimeout's longest delay (a longer one fires after 1 ms): src/types.ts's, which transport may not import. */
export const MAX_TIMER_MS = 2_147_483_647;
