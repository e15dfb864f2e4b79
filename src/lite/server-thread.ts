/**
 * The server thread of `svc lite` (thread.ts starts it): first puts back the V8 flag that the
 * main thread set to size this thread's heap, then loads the server and serves with the options
 * the main thread parsed until the main thread relays a signal, then shuts down cleanly. A
 * failure to start is posted back whole (the main thread ends this thread and reports it with
 * the CLI's usual message and exit code).
 *
 * Why put the flag back first: V8 refuses compiled code cached under other flags, and Node's
 * own modules are cached under the flags node started with. With `--initial-heap-size` still
 * set, this thread compiled every Node module it loaded from source: its start took ~55 ms
 * longer. The server is imported only after that (a static import would be loaded before this
 * module's body runs). This thread's heap keeps its size: V8 reads the flag once, when it makes
 * the isolate.
 */
import { setFlagsFromString } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import type { LiteOptions } from "./options.js";
import { type MainMessage, serializeError, type WorkerReport } from "./thread.js";

const data = workerData as { opts: LiteOptions; heapFlagSet?: boolean };
if (data.heapFlagSet) setFlagsFromString("--initial-heap-size=0");

const port = parentPort!;
const signal = new Promise<NodeJS.Signals>((resolve) => {
  port.on("message", (m: MainMessage) => {
    if (m.signal) resolve(m.signal);
  });
});
// The port must not keep the thread alive: the listening server does, until it closes.
port.unref();

const { serve } = await import("./main.js");
serve(data.opts, signal).catch((e: unknown) => {
  port.postMessage({ failed: serializeError(e) } satisfies WorkerReport);
});
