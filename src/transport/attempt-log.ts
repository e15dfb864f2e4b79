/** Shared pieces of the transports: per-attempt logging (never headers, so never a token) and header flattening. */

/**
 * Milliseconds on a monotonic clock, for request latencies. Not `performance.now()`: the first
 * use of `performance` loads perf_hooks and eight internal modules, a few ms of every one-shot
 * command's start.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function logAttempt(
  log: ((line: string) => void) | undefined,
  req: { method: string; url: string },
  attempt: number,
  started: number,
  outcome: string,
  what = "",
): void {
  if (!log) return;
  const ms = (monotonicMs() - started).toFixed(1);
  log(`${req.method} ${req.url}${what} → ${outcome} in ${ms} ms${attempt > 0 ? ` (attempt ${attempt + 1})` : ""}`);
}

export function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}
