/**
 * Retry delays (protocol.md §11.2, reliability.md §2.f): exponential from 100 ms, capped at
 * 1 s, plus jitter in [0, base); a server's `retry-after-ms` hint wins when present.
 */
export function backoffDelay(attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return retryAfterMs;
  const base = Math.min(100 * 2 ** attempt, 1000);
  return base + Math.random() * base;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
