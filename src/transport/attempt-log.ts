/** Shared pieces of the unary transports: per-attempt logging and error-response decoding. */
import { errorFromResponse, type SvcError } from "../errors.js";
import type { HttpRequest, HttpResponse } from "./types.js";

export function logAttempt(log: ((line: string) => void) | undefined, req: HttpRequest, attempt: number, started: number, outcome: string): void {
  if (!log) return;
  const ms = (performance.now() - started).toFixed(1);
  log(`${req.method} ${req.url} → ${outcome} in ${ms} ms${attempt > 0 ? ` (attempt ${attempt + 1})` : ""}`);
}

/** Non-2xx response → SvcError, from its JSON body when there is one. */
export function responseError(res: HttpResponse): SvcError {
  let body: unknown;
  if (res.body.length > 0) {
    try {
      body = JSON.parse(Buffer.from(res.body).toString("utf8"));
    } catch {
      body = undefined;
    }
  }
  const retryAfter = Number(res.headers["retry-after-ms"]);
  return errorFromResponse(res.status, body, Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined);
}

export function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}
