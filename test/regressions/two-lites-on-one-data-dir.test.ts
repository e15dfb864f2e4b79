/**
 * Bug: two svc lite servers could run on one data dir and overwrite each
 * other's acknowledged records. The lock was a unix socket at a PATH: for long data-dir paths
 * a socket in the temp dir named by a hash of the path STRING, so the same dir reached through
 * a symlink, or started with another TMPDIR, got a second lock (4 of 10 acked records lost);
 * two starters that both found a stale socket after a kill -9 could both unlink it and win;
 * and a temp cleaner deleting the socket file removed the lock.
 *
 * The lock now belongs to the directory's identity (device + inode) in the kernel's abstract
 * socket namespace: atomic bind, no file to clean, freed when the owner dies.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireLock, DataDirLocked } from "../../src/lite/lock.js";
import { liteClient, spawnLite, startLite } from "../helpers/lite.js";

const ROOT = resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "svc-lockreg-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A child process that takes the lock, prints `won` or `lost`, and holds it until killed. */
function contender(dir: string): { outcome: Promise<string>; kill: () => void; exited: Promise<void> } {
  const code = `import(${JSON.stringify(join(ROOT, "dist/lite/lock.js"))}).then(m => m.acquireLock(${JSON.stringify(dir)}))
    .then(() => { process.stdout.write("won\\n"); setInterval(() => {}, 1e6); }, (e) => { process.stdout.write(e.name === "DataDirLocked" ? "lost\\n" : "error " + e.message + "\\n"); process.exit(0); });`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const outcome = new Promise<string>((res) =>
    child.stdout!.on("data", (c: Buffer) => {
      out += c;
      if (out.includes("\n")) res(out.trim());
    }),
  );
  const exited = new Promise<void>((res) => child.once("exit", () => res()));
  return { outcome, kill: () => child.kill("SIGKILL"), exited };
}

describe("the data-dir lock follows the directory, not a path", () => {
  it("refuses the same dir through a symlink, a long path and another TMPDIR", async () => {
    const long = join(scratch, "x".repeat(60), "y".repeat(60));
    mkdirSync(long, { recursive: true });
    const link = join(scratch, "link");
    symlinkSync(long, link);
    const lite = await startLite({ dataDir: long });
    try {
      for (const [dir, env] of [
        [link, {}],
        [long, { TMPDIR: scratch }],
        [`${long}/../${"y".repeat(60)}`, {}],
      ] as const) {
        const err = await spawnLite(["--port", "0", "--data-dir", dir], env).then(
          async (s) => {
            s.child.kill("SIGKILL");
            await s.exited;
            return "started";
          },
          (e: Error) => e.message,
        );
        expect(err, dir).toMatch(/another svc lite server is already using the data dir/);
      }
      expect((await liteClient(lite).call("GET", "/health")).status).toBe(200);
    } finally {
      await lite.stop();
    }
  });

  it("200 simultaneous in-process starters: exactly one winner each", async () => {
    for (let trial = 0; trial < 200; trial++) {
      const dir = join(scratch, `t${trial}`);
      mkdirSync(dir);
      const results = await Promise.allSettled([0, 1, 2, 3].map(() => acquireLock(dir)));
      const won = results.filter((r) => r.status === "fulfilled");
      expect(won.length, `trial ${trial}`).toBe(1);
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(DataDirLocked);
      await (won[0] as PromiseFulfilledResult<{ release: () => Promise<void> }>).value.release();
      rmSync(dir, { recursive: true });
    }
  });

  it("simultaneous starters in separate processes, fresh and after the owner is killed: one winner", async () => {
    const dir = join(scratch, "procs");
    mkdirSync(dir);
    for (let round = 0; round < 6; round++) {
      const cs = [0, 1, 2].map(() => contender(dir));
      const outcomes = await Promise.all(cs.map((c) => c.outcome));
      expect(
        outcomes.filter((o) => o === "won"),
        `round ${round}: ${outcomes}`,
      ).toHaveLength(1);
      expect(outcomes.filter((o) => o === "lost")).toHaveLength(2);
      // kill -9 the winner: the next round starts on the dead owner's lock.
      for (const c of cs) c.kill();
      await Promise.all(cs.map((c) => c.exited));
    }
  });

  it("two whole servers started in the same instant on one dir: exactly one serves", async () => {
    const dir = join(scratch, "servers");
    mkdirSync(dir);
    for (let round = 0; round < 3; round++) {
      const starts = await Promise.allSettled([
        spawnLite(["--port", "0", "--data-dir", dir]),
        spawnLite(["--port", "0", "--data-dir", join(scratch, "servers", ".")]),
      ]);
      const up = starts.filter((s) => s.status === "fulfilled");
      expect(up, `round ${round}`).toHaveLength(1);
      const s = (up[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof spawnLite>>>).value;
      s.child.kill("SIGKILL");
      await s.exited;
    }
  });
});
