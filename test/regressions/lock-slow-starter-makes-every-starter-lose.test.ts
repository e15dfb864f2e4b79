/**
 * Bug: when several svc lite servers started on one data dir at once on a busy machine, none
 * of them started. Each starter looks at the others' lock sockets, and one that had not
 * answered within a second was taken for a holder: a starter slow to answer (its process
 * still loading, the cores busy) made the one with the smallest name give up, and the others
 * gave up to that one, so every starter lost ("round 1: lost,lost,lost" in the full suite).
 *
 * Now a socket that does not answer is looked at again; only one that has not answered for
 * 5 s counts as a holder (a stopped or hung server still keeps others out).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireLock, DataDirLocked } from "../../src/lite/lock.js";

const scratch = mkdtempSync(join(tmpdir(), "svc-lockslow-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A lock socket that answers `state` after `answerMs` (never when undefined). */
async function peer(dir: string, name: string, answerMs: number | undefined, state = "S"): Promise<Server> {
  const server = createServer((s) => {
    s.on("error", () => undefined);
    if (answerMs !== undefined) setTimeout(() => s.end(state), answerMs);
  });
  await new Promise<void>((resolve) => server.listen(join(dir, name), resolve));
  return server;
}

const closed = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

describe("the data-dir lock on a busy machine", () => {
  it("waits for a starter that is slow to answer, and holds once it has gone", async () => {
    const dir = mkdtempSync(join(scratch, "slow-"));
    // A starter with a larger name than any of ours ('z' > hex) that answers after 1.5 s, then
    // gives up as a losing starter does: closes its socket and removes its file.
    const slow = await peer(dir, "lite-lock-zzzz", 1500);
    const later = setTimeout(
      () => void closed(slow).then(() => rmSync(join(dir, "lite-lock-zzzz"), { force: true })),
      1700,
    );
    const t0 = Date.now();
    const lock = await acquireLock(dir);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);
    clearTimeout(later);
    await lock.release();
  }, 15_000);

  it("still counts a socket that never answers as a holder, after 5 s", async () => {
    const dir = mkdtempSync(join(scratch, "hung-"));
    const hung = await peer(dir, "lite-lock-zzzz", undefined);
    const t0 = Date.now();
    await expect(acquireLock(dir)).rejects.toBeInstanceOf(DataDirLocked);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4500);
    await closed(hung);
  }, 15_000);
});
