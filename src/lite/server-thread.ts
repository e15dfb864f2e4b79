/**
 * The server thread of `svc lite` (thread.ts starts it, worker.ts loads this): serves with the
 * options the main thread parsed until the main thread relays a signal, then shuts down
 * cleanly. A failure to start is posted back whole, so the CLI reports it with its usual
 * message and exit code.
 */
import { parentPort, workerData } from "node:worker_threads";
import { serve } from "./main.js";
import type { LiteOptions } from "./options.js";
import { serializeError, type MainMessage, type WorkerReport } from "./thread.js";

const port = parentPort!;
const signal = new Promise<NodeJS.Signals>((resolve) => {
  port.on("message", (m: MainMessage) => {
    if (m.signal) resolve(m.signal);
  });
});
// The port must not keep the thread alive: the listening server does, until it closes.
port.unref();

serve((workerData as { opts: LiteOptions }).opts, signal).catch((e: unknown) => {
  port.postMessage({ failed: serializeError(e) } satisfies WorkerReport);
  // Whatever a failed start left open must not keep the thread (and the process) alive; the
  // report is delivered before the main thread sees the thread end.
  process.exit(1);
});
