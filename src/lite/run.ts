/**
 * `svc lite` as a command: parse, then serve from the server thread (thread.ts), or on this
 * thread with SVC_LITE_THREAD=main (profiling, debugging). Loads no server module itself.
 */
import { parseLiteArgs, USAGE } from "./options.js";

export async function runLite(argv: string[]): Promise<void> {
  const opts = parseLiteArgs(argv);
  if (opts.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (process.env.SVC_LITE_THREAD === "main") {
    // Handlers go in before the export lines: a parent may signal as soon as it reads them.
    const { serve } = await import("./main.js");
    await serve(opts, processSignal());
    return;
  }
  const { serveInWorker } = await import("./thread.js");
  await serveInWorker(opts);
}

/** The first SIGINT/SIGTERM of this thread; a second one exits at once (130). */
function processSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolvePromise) => {
    const on = (sig: NodeJS.Signals): void => {
      process.removeListener("SIGINT", on);
      process.removeListener("SIGTERM", on);
      // A second signal during shutdown means "now".
      const force = (): never => { process.stderr.write("svc lite: forced exit\n"); process.exit(130); };
      process.once("SIGINT", force);
      process.once("SIGTERM", force);
      resolvePromise(sig);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}
