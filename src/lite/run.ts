/**
 * `svc lite` as a command: parse, then serve from the server thread (thread.ts), or on this
 * thread with SVC_LITE_THREAD=main (profiling, debugging). Loads no server module itself.
 */
import { clientError } from "../errors.js";
import { log } from "./log.js";
import { parseLiteArgs, USAGE } from "./options.js";

export async function runLite(argv: string[]): Promise<void> {
  const opts = parseLiteArgs(argv);
  if (opts.help) {
    process.stdout.write(USAGE);
    return;
  }
  // Handlers go in before the export lines: a parent may signal as soon as it reads them.
  const { first, second } = processSignals();
  const serving = (async () => {
    if (opts.thread === "main") {
      const { serve } = await import("./main.js");
      return serve(opts, first);
    }
    const { serveInWorker } = await import("./thread.js");
    return serveInWorker(opts, first);
  })();
  // A second signal during shutdown means "now": the top (bin/svc.js) exits with 130.
  const forced = second.then(() => {
    log("forced exit");
    throw clientError("interrupted", "svc lite: forced exit (a second signal during shutdown)");
  });
  forced.catch(() => undefined); // a signal after the server stopped changes nothing
  await Promise.race([serving, forced]);
}

/**
 * The first SIGINT/SIGTERM (a worker gets none: the main thread relays it), and a second one.
 * Signal listeners do not keep the process alive.
 */
function processSignals(): { first: Promise<NodeJS.Signals>; second: Promise<void> } {
  let onSecond!: () => void;
  const second = new Promise<void>((r) => {
    onSecond = r;
  });
  const first = new Promise<NodeJS.Signals>((resolvePromise) => {
    const on = (sig: NodeJS.Signals): void => {
      process.removeListener("SIGINT", on);
      process.removeListener("SIGTERM", on);
      process.once("SIGINT", onSecond);
      process.once("SIGTERM", onSecond);
      resolvePromise(sig);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
  return { first, second };
}
