/**
 * One server per data dir (reliability.md R2): an exclusive lock that a kill -9 releases.
 * The lock is a unix socket `<dataDir>/lite.sock` that the server listens on:
 *   - listen succeeds → we own the dir;
 *   - EADDRINUSE and a connect succeeds → another live server owns it → fail fast;
 *   - EADDRINUSE and the connect is refused → a stale socket from a killed server: unlink it
 *     and take the lock.
 * The kernel drops the listening socket when the process dies, however it dies.
 */
import { createHash } from "node:crypto";
import { unlinkSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Unix socket paths are limited to ~107 bytes; long data dirs use a hashed path in tmpdir. */
export function lockPath(dataDir: string): string {
  const direct = join(dataDir, "lite.sock");
  if (Buffer.byteLength(direct) < 100) return direct;
  return join(tmpdir(), `svc-lite-${createHash("sha256").update(dataDir).digest("hex").slice(0, 16)}.sock`);
}

export class DataDirLocked extends Error {
  constructor(dataDir: string) {
    super(`another svc lite server is already using the data dir ${dataDir}`);
    this.name = "DataDirLocked";
  }
}

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.end());
    server.once("error", reject);
    server.listen(path, () => {
      server.removeListener("error", reject);
      resolve(server);
    });
  });
}

function alive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once("connect", () => { s.destroy(); resolve(true); });
    s.once("error", () => resolve(false));
  });
}

export async function acquireLock(dataDir: string): Promise<{ release: () => Promise<void> }> {
  const path = lockPath(dataDir);
  let server: Server;
  try {
    server = await listen(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
    if (await alive(path)) throw new DataDirLocked(dataDir);
    unlinkSync(path);
    try {
      server = await listen(path);
    } catch (e2) {
      if ((e2 as NodeJS.ErrnoException).code === "EADDRINUSE") throw new DataDirLocked(dataDir);
      throw e2;
    }
  }
  server.unref();
  return { release: () => new Promise((resolve) => server.close(() => resolve())) };
}
