/**
 * Writing a file whole, for every file svc and svc lite replace: a reader (or the next run)
 * finds the old content or the new one, never a part of either. The content goes to a fresh
 * name beside the file (created exclusively: nothing else writes there), then is renamed over it.
 *
 * What a crash of the machine may still undo depends on the kind of file, and is decided here,
 * once per kind:
 *
 *   SECRET      the root token, the self-signed TLS key and certificate (lite's data dir), the
 *               config file (it holds access tokens). Mode 0600 whatever the umask. Durable: the
 *               file is synced before the rename and its directory after it, since a lost write
 *               is not harmless: the root token printed at start would no longer open the
 *               server, a `svc config set` that said it was done would be undone.
 *   CHECKPOINT  where a read goes on (`--checkpoint`). The umask's mode. Not synced: a checkpoint
 *               lost in a crash sends the next run back to an earlier position, and the records
 *               after it are read again, as they are when a run stops between writing a batch
 *               and its checkpoint; a sync after every batch would make a read wait for the
 *               disk each time.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

interface FileKind {
  /** Set exactly (the umask does not apply); absent: 0666 less the umask. */
  mode?: number;
  /** Synced to disk (the file, then its directory) before the write returns. */
  durable: boolean;
}

export const SECRET: FileKind = { mode: 0o600, durable: true };
export const CHECKPOINT: FileKind = { durable: false };

/** Replaces `path` with `data`, whole, as `kind` says (see the top). */
export function writeWhole(path: string, data: string | Uint8Array, kind: FileKind): void {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const fd = openSync(temp, "wx", kind.mode ?? 0o666);
    try {
      if (kind.mode !== undefined) fchmodSync(fd, kind.mode);
      writeFileSync(fd, data);
      if (kind.durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
  if (kind.durable) syncDir(dirname(path));
}

/** Makes a rename in `dir` durable; best effort (some systems cannot open or sync a directory). */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Nothing more can be done there; the file itself is synced.
  }
}
