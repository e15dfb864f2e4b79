/**
 * `svc lite` serves from a worker thread, so that the server's V8 heap can be sized when it is
 * made (a running isolate's cannot be). The main thread only relays signals and the outcome.
 *
 * Why: the server allocates few JavaScript objects but many byte buffers (each input arrives in
 * HTTP/2 chunks, is joined into one frame and encoded into one stored value). V8 counts that
 * external memory against an allocation limit it derives from the small live heap, so it ran a
 * full collection every ~30 ms while a session streamed and every ~270 ms at 10 MiB/s, each a
 * 1–4 ms pause in the ack path. With the initial heap at SERVER_HEAP_MB the limit does not fall
 * below it: ack latency p99 at 10 MiB/s went from 8.5–12.4 to 4.3–5.7 ms. 128 MB was a little
 * faster still, but let garbage buffers pile up to a 1 GiB session's peak RSS of 196–252 MiB
 * (the target is 256; 64 MB: 195–209, the main thread's default heap: 178).
 *
 * One process, as before: the pid is the server's, kill -9 stops everything at once, RSS is the
 * server's, the data dir lock is held by the same pid. SIGINT/SIGTERM are the main thread's
 * (workers get no signals): run.ts relays the first, which shuts the server down cleanly; a
 * second exits at once with 130. SVC_LITE_THREAD=main serves on the main thread (profiling).
 */
import { setFlagsFromString } from "node:v8";
import { Worker } from "node:worker_threads";
import { SvcError, type SvcErrorOptions } from "../errors.js";
import { log } from "./log.js";
import type { LiteOptions } from "./options.js";

/** The server isolate's initial heap, MB; `node --initial-heap-size=N` given to node wins. */
const SERVER_HEAP_MB = 64;

/** What the worker posts to the main thread. */
export type WorkerReport = { failed: SerializedError };
/** What the main thread posts to the worker. */
export type MainMessage = { signal: NodeJS.Signals };

interface SerializedError {
  message: string;
  stack?: string;
  /** Present for an SvcError: enough to rebuild it for the CLI's error sink and exit code. */
  svc?: Omit<SvcErrorOptions, "message" | "cause">;
}

export function serializeError(e: unknown): SerializedError {
  const err = e instanceof Error ? e : new Error(String(e));
  const out: SerializedError = { message: err.message };
  if (err.stack !== undefined) out.stack = err.stack;
  if (err instanceof SvcError) {
    out.svc = { code: err.code, origin: err.origin, retryable: err.retryable, sideEffects: err.sideEffects };
    if (err.status !== undefined) out.svc.status = err.status;
  }
  return out;
}

function reviveError(s: SerializedError): Error {
  if (s.svc) return new SvcError({ ...s.svc, message: s.message });
  const e = new Error(s.message);
  if (s.stack !== undefined) e.stack = s.stack;
  return e;
}

/** True when node was started with an explicit initial heap size (then it is left alone). */
function heapSizeGiven(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  return flags.some((f) => /^--initial[-_](heap|old[-_]space)[-_]size/.test(f));
}

/**
 * Runs the server in a worker thread until it stops, relaying `signal` (run.ts) to it; rejects
 * with the server's failure.
 */
export async function serveInWorker(opts: LiteOptions, signal: Promise<NodeJS.Signals>): Promise<void> {
  const heapFlagSet = !heapSizeGiven();
  if (heapFlagSet) setFlagsFromString(`--initial-heap-size=${SERVER_HEAP_MB}`);
  // The thread's entry (server-thread.ts) puts the flag back first thing (0 is V8's default).
  const worker = new Worker(new URL("./server-thread.js", import.meta.url), { workerData: { opts, heapFlagSet } });
  void signal.then((sig) => worker.postMessage({ signal: sig } satisfies MainMessage));
  let failure: Error | undefined;
  await new Promise<void>((resolve, reject) => {
    worker.on("message", (m: WorkerReport) => {
      if (!m.failed) return;
      failure = reviveError(m.failed);
      // Whatever a failed start left open must not keep the thread (and the process) alive.
      void worker.terminate();
    });
    // An exception nothing caught in the server thread ends it: its stack goes to the log.
    worker.on("error", (e) => {
      log(`internal error: ${e.stack ?? e.message}`);
      failure ??= e;
    });
    worker.on("exit", (code) => {
      if (failure) reject(failure);
      else if (code !== 0) reject(new Error(`the server thread ended with code ${code}`));
      else resolve();
    });
  });
}
