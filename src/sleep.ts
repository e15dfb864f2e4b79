/**
 * The one abortable wait: resolves after `ms` (capped to the longest delay a timer keeps), or at
 * once when `signal` aborts; the caller checks the signal. Used by retries, the multi-stream
 * tail and the bench.
 */
import { MAX_TIMER_MS } from "./types.js";

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.min(MAX_TIMER_MS, ms));
    signal?.addEventListener("abort", done, { once: true });
  });
}
