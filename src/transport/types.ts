/** The unary transport contract: bytes and statuses in, bytes or an SvcError out. */

export interface HttpRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Safe to re-send after an ambiguous failure. */
  idempotent: boolean;
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
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 2;

/** setTimeout's longest delay (a longer one fires after 1 ms): src/types.ts's, which transport may not import. */
export const MAX_TIMER_MS = 2_147_483_647;
