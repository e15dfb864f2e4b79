/**
 * Attack (security review): any local user could stop svc lite from starting. The data dir's
 * lock was an abstract unix socket named after the dir's device and inode
 * (`\0svc-lite-lock:<dev>:<ino>`); abstract sockets have no permissions, so another user who
 * bound that name first (the device and inode are visible to anyone who can stat the dir's
 * path, and the name to anyone reading /proc/net/unix) made lite refuse with "another svc lite
 * server is already using the data dir", for as long as they liked.
 *
 * Now the lock is socket files inside the data dir, which only its owner can create: another
 * user can neither take the lock nor block it, and another user's socket under the old name
 * is ignored. One of this user's own processes holding the old name is taken for an older
 * svc lite still serving the dir, and refused as before (an upgrade must not start a second
 * server beside it). (The lock's own guarantees, one server through symlinks, other TMPDIRs,
 * simultaneous starts and after a kill -9, are two-lites-on-one-data-dir.test.ts.) The other
 * user is `nobody`: those cases need root and are skipped otherwise.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { liteClient, spawnLite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const ROOT = resolve(import.meta.dirname, "../..");
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** A node child (as nobody when root) running `code`; resolves with its first line of output. */
function child(code: string, asNobody: boolean): { line: Promise<string>; proc: ChildProcess } {
  const proc = spawn(process.execPath, ["-e", code], {
    stdio: ["ignore", "pipe", "pipe"],
    cwd: "/",
    ...(asNobody ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  let out = "";
  const line = new Promise<string>((res) => {
    proc.stdout!.on("data", (c: Buffer) => {
      out += c;
      if (out.includes("\n")) res(out.split("\n")[0]!);
    });
    proc.once("exit", () => res(out.split("\n")[0] ?? ""));
  });
  return { line, proc };
}

/** Code that binds the abstract socket an older svc lite locked `dir` with. */
function oldLock(dir: string): string {
  const st = statSync(dir, { bigint: true });
  const name = `\0svc-lite-lock:${st.dev.toString(16)}:${st.ino.toString(16)}`;
  return `require("node:net").createServer((s) => s.end()).listen(${JSON.stringify(name)}, () => console.log("bound"))`;
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise((res) => proc.once("exit", res));
  proc.kill("SIGKILL");
  await gone;
}

describe("the data dir's lock cannot be taken or blocked by another user", () => {
  it.skipIf(!isRoot)(
    "starts although another user (nobody) holds the old abstract socket name of the data dir",
    async () => {
      const dir = join(scratchDir("svc-squat-"), "data");
      mkdirSync(dir, { mode: 0o700 });
      const squatter = child(oldLock(dir), true);
      try {
        expect(await squatter.line).toBe("bound");
        const lite = await startLite({ dataDir: dir });
        try {
          expect((await liteClient(lite).call("GET", "/health")).status).toBe(200);
        } finally {
          await lite.stop();
        }
      } finally {
        await stop(squatter.proc);
      }
    },
  );

  it.skipIf(!isRoot)("another user (nobody) cannot take the lock of a data dir, nor keep lite out", async () => {
    const parent = scratchDir("svc-squat-");
    chmodSync(parent, 0o755); // nobody may reach the data dir, but not into it
    const dir = join(parent, "data");
    mkdirSync(dir, { mode: 0o700 });
    const lockJs = JSON.stringify(join(ROOT, "dist/lite/lock.js"));
    const other = child(
      `import(${lockJs}).then((m) => m.acquireLock(${JSON.stringify(dir)})).then(() => { console.log("won"); setInterval(() => {}, 1e6); }, (e) => console.log("refused " + (e.code ?? e.name)))`,
      true,
    );
    try {
      expect(await other.line).toBe("refused EACCES");
      const lite = await startLite({ dataDir: dir });
      try {
        expect((await liteClient(lite).call("GET", "/health")).status).toBe(200);
      } finally {
        await lite.stop();
      }
    } finally {
      await stop(other.proc);
    }
  });

  it("refuses to start beside an older svc lite of this user that still serves the dir", async () => {
    const dir = join(scratchDir("svc-squat-"), "data");
    mkdirSync(dir, { mode: 0o700 });
    const older = child(oldLock(dir), false);
    try {
      expect(await older.line).toBe("bound");
      const err = await spawnLite(["--port", "0", "--data-dir", dir]).then(
        async (s) => {
          s.child.kill("SIGKILL");
          await s.exited;
          return "started";
        },
        (e: Error) => e.message,
      );
      expect(err).toMatch(/another svc lite server is already using the data dir/);
    } finally {
      await stop(older.proc);
    }
    const lite = await startLite({ dataDir: dir });
    await lite.stop();
  });
});
