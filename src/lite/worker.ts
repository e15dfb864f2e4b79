/**
 * The entry of svc lite's server thread (thread.ts starts it): first puts back the V8 flag that
 * the main thread set to size this thread's heap, then loads the server (server-thread.ts).
 *
 * Why put it back: V8 refuses compiled code cached under other flags, and Node's own modules
 * are cached under the flags node started with. With `--initial-heap-size` still set, this
 * thread compiled every Node module it loaded from source: its start took ~55 ms longer (~30
 * of them bootstrapping, before this file runs; the rest loading the server's imports). This
 * thread's heap keeps its size: V8 reads the flag once, when it makes the isolate.
 */
import { setFlagsFromString } from "node:v8";
import { workerData } from "node:worker_threads";

if ((workerData as { heapFlagSet?: boolean }).heapFlagSet) setFlagsFromString("--initial-heap-size=0");
await import("./server-thread.js");
