/**
 * Disk space for lmdb, claimed before lmdb needs it.
 *
 * lmdb-js cannot survive its own write failing for lack of space: when ENOSPC comes and goes
 * its native writer corrupts its heap and the process aborts (issue 10, found 3), and a
 * process that kept writing after such a failure could not be trusted anyway. So lmdb must
 * never meet a full disk. The data file is kept longer than the pages lmdb has used (its
 * high-water mark, `(lastPageNumber + 1) * pageSize`) by a headroom that this module
 * allocates itself; lmdb writes pages at offsets inside that headroom, into blocks that are
 * already the file's, and cannot run out. lmdb reads nothing past its high-water mark, so the
 * extra length is invisible to it (on reopen too).
 *
 * Every write is admitted against the headroom with an estimate of the pages it may dirty.
 * When the headroom falls under half an extension, the file is extended in the background,
 * past its current end, where no admitted write can be (issue 13: waiting for that stalled
 * every append pipeline once per 16 MiB). Only when the headroom runs out does the caller
 * wait for every issued write to settle (lmdb's writer is then idle and no page past the mark
 * is being written), re-measure and extend the file. If the disk cannot give the space, that write is refused with 507 `storage_full`
 * before lmdb sees it: a clean, retryable failure that loses and changes nothing.
 *
 * Extension allocates blocks with `fallocate(1)` (util-linux) where it exists: no data is
 * written, so the next fsync does not carry megabytes of zeros. Elsewhere it writes zeros.
 * On copy-on-write filesystems (btrfs, zfs) an overwrite needs new blocks anyway, so the
 * guarantee is only as good as the filesystem's; ext4, xfs and tmpfs keep it.
 */
import { execFile } from "node:child_process";
import { closeSync, fstatSync, openSync, writeSync } from "node:fs";
import { serverError, type SvcError } from "../../errors.js";

const MiB = 1024 * 1024;

/** Pages one write can dirty besides its data: a path of branch and leaf pages per database. */
export const WRITE_OVERHEAD = 64 * 1024;

/** Headroom never admitted, against estimates that fall short. */
const SLACK = MiB;

export interface SpaceReserveOptions {
  /** The smallest extension (default 16 MiB; tests use less). */
  minChunk?: number;
  /** The largest extension (default 256 MiB). */
  maxChunk?: number;
}

export function storageFull(detail: string): SvcError {
  return serverError("storage_full", `the data directory's disk is full: ${detail}; nothing was written (free space and retry)`);
}

export class SpaceReserve {
  /** Bytes the data file holds (allocated by us or lmdb). */
  private fileSize = 0;
  /** lmdb's high-water mark at the last measure. */
  private used = 0;
  /** Estimated bytes of writes admitted since the last measure. */
  private admitted = 0;
  private readonly minChunk: number;
  private readonly maxChunk: number;
  /** A background extension in progress. */
  private growing: Promise<void> | undefined;

  constructor(
    private readonly file: string,
    private readonly measureUsed: () => number,
    opts: SpaceReserveOptions = {},
  ) {
    this.minChunk = opts.minChunk ?? 16 * MiB;
    this.maxChunk = opts.maxChunk ?? 256 * MiB;
    this.measure();
  }

  /** Admits a write of about `bytes` if the headroom holds it (synchronous: the fast path). */
  tryAdmit(bytes: number): boolean {
    if (this.used + this.admitted + bytes + SLACK > this.fileSize) return false;
    this.admitted += bytes;
    return true;
  }

  /**
   * Starts extending the file in the background once the headroom is under half an
   * extension. The new blocks lie past the file's end, beyond anything admitted, so lmdb may
   * keep writing meanwhile. A failure is left to the slow path, which meets it again.
   */
  maybeGrow(): void {
    if (this.growing) return;
    const chunk = this.chunk();
    if (this.fileSize - this.used - this.admitted - SLACK >= chunk / 2) return;
    const end = this.fileSize;
    this.growing = extend(this.file, end, chunk)
      .then(() => { this.fileSize = Math.max(this.fileSize, this.sizeOnDisk()); }, () => undefined)
      .finally(() => { this.growing = undefined; });
  }

  /** Resolves once no background extension is running. */
  settled(): Promise<void> {
    return this.growing ?? Promise.resolve();
  }

  /**
   * Re-measures lmdb's high-water mark once the headroom looks short (the estimates of settled
   * writes overstate what they used); call only while no write is in flight. Otherwise it
   * does nothing: it runs whenever lmdb's writer goes idle, which for serial appends is every
   * write.
   */
  remeasureIfShort(): void {
    if (this.fileSize - this.used - this.admitted - SLACK >= this.chunk() / 2) return;
    this.measure();
  }

  private chunk(): number {
    return Math.min(this.maxChunk, Math.max(this.minChunk, Math.floor(this.used / 8)));
  }

  /**
   * Re-measures and extends the file so that at least `need` bytes fit. Call only while no
   * write is in flight. Rejects with 507 `storage_full` when the disk cannot give the space.
   */
  async refill(need: number): Promise<void> {
    await this.growing;
    this.measure();
    const want = this.used + need + SLACK;
    if (want <= this.fileSize) return;
    const chunk = this.chunk();
    try {
      await extend(this.file, this.fileSize, want + chunk - this.fileSize);
    } finally {
      this.measure();
    }
    if (want > this.fileSize) throw storageFull(`could not reserve ${need} bytes`);
  }

  private measure(): void {
    this.used = this.measureUsed();
    this.admitted = 0;
    this.fileSize = this.sizeOnDisk();
  }

  private sizeOnDisk(): number {
    const fd = openSync(this.file, "r");
    try { return fstatSync(fd).size; } finally { closeSync(fd); }
  }
}

let fallocateWorks: boolean | undefined;

/** Grows `file` by `length` bytes at `offset` with allocated blocks. */
async function extend(file: string, offset: number, length: number): Promise<void> {
  if (length <= 0) return;
  if (fallocateWorks !== false) {
    const ok = await new Promise<boolean | Error>((resolve) => {
      execFile("fallocate", ["-o", String(offset), "-l", String(length), file], (err, _out, stderr) => {
        if (!err) return resolve(true);
        // Not installed, or the filesystem does not support it: fall back to writing zeros.
        if ((err as NodeJS.ErrnoException).code === "ENOENT" || /not supported/i.test(stderr)) return resolve(false);
        resolve(storageFull(stderr.trim() || err.message));
      });
    });
    if (ok === true) { fallocateWorks = true; return; }
    if (ok instanceof Error) throw ok;
    fallocateWorks = false;
  }
  const fd = openSync(file, "r+");
  const zeros = Buffer.alloc(Math.min(length, MiB));
  try {
    for (let at = 0; at < length; at += zeros.length) {
      writeSync(fd, zeros, 0, Math.min(zeros.length, length - at), offset + at);
    }
  } catch (e) {
    throw storageFull((e as Error).message);
  } finally {
    closeSync(fd);
  }
}
