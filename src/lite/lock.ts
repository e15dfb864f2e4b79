/**
 * One server per data dir (reliability.md R2): an exclusive lock that a kill -9 releases.
 *
 * The lock is a listening unix socket in Linux's ABSTRACT namespace (a name starting with a
 * NUL byte), named after the data dir's IDENTITY: the device and inode of the directory, not
 * its path. So:
 *   - the same dir reached through a symlink, a relative path or with another TMPDIR maps to
 *     the same name (a path string or a hash of one did not: two servers appended);
 *   - bind() is atomic in the kernel: of any number of simultaneous starters exactly one
 *     wins, and there is no stale file to test and unlink (that test-then-unlink let two
 *     starters win after a kill -9);
 *   - there is no file at all, so a temp cleaner cannot remove the lock; the kernel frees the
 *     name when the owning process dies, however it dies.
 * A dir deleted and recreated is a new inode, hence a new lock: that is a new data dir.
 * Abstract sockets are per network namespace; lite and its data dir share one in practice.
 */
import { statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";

export class DataDirLocked extends Error {
  constructor(dataDir: string) {
    super(`another svc lite server is already using the data dir ${dataDir}`);
    this.name = "DataDirLocked";
  }
}

/** The abstract socket name of a data dir (exported for tests). */
export function lockName(dataDir: string): string {
  const st = statSync(dataDir, { bigint: true });
  return `\0svc-lite-lock:${st.dev.toString(16)}:${st.ino.toString(16)}`;
}

function listen(name: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.end());
    server.once("error", reject);
    server.listen(name, () => {
      server.removeListener("error", reject);
      resolve(server);
    });
  });
}

export async function acquireLock(dataDir: string): Promise<{ release: () => Promise<void> }> {
  // Elsewhere (no abstract namespace) a socket file in the dir: never unlinked by us, so a
  // kill -9 leaves it behind and the message says to remove it by hand.
  const name = process.platform === "linux" ? lockName(dataDir) : join(dataDir, "lite.sock");
  let server: Server;
  try {
    server = await listen(name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
    const locked = new DataDirLocked(dataDir);
    if (process.platform !== "linux") locked.message += ` (if no server is running, remove ${name})`;
    throw locked;
  }
  server.unref();
  return { release: () => new Promise((resolve) => server.close(() => resolve())) };
}
