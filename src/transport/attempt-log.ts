/** Shared pieces of the transports: per-attempt logging (never headers, so never a token) and header flattening. */

export function logAttempt(log: ((line: string) => void) | undefined, req: { method: string; url: string }, attempt: number, started: number, outcome: string, what = ""): void {
  if (!log) return;
  const ms = (performance.now() - started).toFixed(1);
  log(`${req.method} ${req.url}${what} → ${outcome} in ${ms} ms${attempt > 0 ? ` (attempt ${attempt + 1})` : ""}`);
}

export function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}
