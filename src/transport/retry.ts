/**
 * The one retry policy (docs/design/reliability.md, "Retry decisions"; protocol.md §11.2), for unary requests and
 * sessions alike.
 *
 * - Idempotent calls (reads, check-tail, management with a request token) retry every
 *   retryable failure: connect failures, timeouts, resets, 408, 429, 500, 502, 503, 504 and
 *   409 `transaction_conflict`.
 * - Non-idempotent calls (unary append) retry only failures that provably had no effect
 *   (`sideEffects: false`): connection refused, 429, 502, `server_draining`.
 * - Backoff: min(100 ms · 2^n, 1 s) plus jitter in [0, base); a server's `retry-after-ms`
 *   is honoured when present (§11.2), whether longer or shorter than our own delay.
 * - With a list of endpoints, a failure to connect is not retried on the same node: the next
 *   node is tried at once, and the retries (with this backoff) come once every node has
 *   failed (client/caller.ts).
 */
import { SvcError } from "../errors.js";
import { sleep } from "../sleep.js";

interface RetryOptions {
  /** Retries after the first attempt (0 = one attempt). */
  retries: number;
  idempotent: boolean;
  /** A failure to connect is thrown at once, not retried (the caller tries another node first). @default false */
  moveOnConnectFailure?: boolean;
  /** Called before each retry, for verbose logs. */
  onRetry?: (attempt: number, delayMs: number, error: SvcError) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 1000;

/** Delay before retry number `n` (0-based): the server's hint, else min(100·2^n, 1000) + jitter in [0, base). */
export function backoffDelay(n: number, random: () => number = Math.random, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return retryAfterMs;
  const base = Math.min(BACKOFF_BASE_MS * 2 ** n, BACKOFF_MAX_MS);
  return base + Math.floor(random() * base);
}

/** Whether a failed attempt may be retried under the policy. */
export function shouldRetry(error: unknown, idempotent: boolean): error is SvcError {
  if (!(error instanceof SvcError) || !error.retryable) return false;
  return idempotent || !error.sideEffects;
}

export async function withRetries<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const wait = opts.sleep ?? sleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (attempt >= opts.retries || !shouldRetry(e, opts.idempotent)) throw e;
      if (opts.moveOnConnectFailure && e.code === "connect_failed") throw e;
      const delay = backoffDelay(attempt, opts.random, e.retryAfterMs);
      opts.onRetry?.(attempt + 1, delay, e);
      await wait(delay);
    }
  }
}
