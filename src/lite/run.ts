/**
 * `svc lite` as a command: parse, then serve from the server thread (thread.ts), or on this
 * thread with SVC_LITE_THREAD=main (profiling, debugging). Loads no server module itself.
 */
import { log } from "./log.js";
import { parseLiteArgs, USAGE } from "./options.js";

export async function runLite(argv: string[]): Promise<void> {
  const opts = parseLiteArgs(argv);
  if (opts.help) {
    process.stdout.write(USAGE);
    return;
  }
  // Handlers go in before the export lines: a parent may signal as soon as it reads them.
  const signal = processSignal();
  if (process.env.SVC_LITE_THREAD === "main") {
    const { serve } = await import("./main.js");
    await serve(opts, signal);
    return;
  }
  const { serveInWorker } = await import("./thread.js");
  await serveInWorker(opts, signal);
}

/**
 * The first SIGINT/SIGTERM (a worker gets none: the main thread relays this one); a second one
 * exits at once with 130. Signal listeners do not keep the process alive.
 */
function processSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolvePromise) => {
    const on = (sig: NodeJS.Signals): void => {
      process.removeListener("SIGINT", on);
      process.removeListener("SIGTERM", on);
      // A second signal during shutdown means "now".
      const force = (): never => { log("forced exit"); process.exit(130); };
      process.once("SIGINT", force);
      process.once("SIGTERM", force);
      resolvePromise(sig);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}
