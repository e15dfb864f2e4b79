/**
 * Disk space for lmdb, claimed before lmdb needs it.
 *
 * lmdb-js cannot survive its own write failing for lack of space: when ENOSPC comes and goes
 * its native writer corrupts its heap and the process aborts, and a
 * process that kept writing after such a failure could not be trusted anyway. So lmdb must
 * never meet a full disk. The data file is kept longer than the pages lmdb has used (its
 * high-water mark, `(lastPageNumber + 1) * pageSize`) by a headroom that this module
 * allocates itself; lmdb writes pages at offsets inside that headroom, into blocks that are
 * already the file's, and cannot run out. lmdb reads nothing past its high-water mark, so the
 * extra length is invisible to it (on reopen too).
 *
 * Every write is admitted against the headroom with an estimate of the pages it may dirty.
 * When the headroom falls under half an extension, the file is extended in the background,
 * past its current end, where no admitted write can be (waiting for that stalled every
 * append pipeline once per 16 MiB). Only when the headroom runs out does the caller
 * wait for every issued write to settle (lmdb's writer is then idle and no page past the mark
 * is being written), re-measure and extend the file: by a whole extension, or, when the disk
 * no longer has that much, by what the write needs. If the disk cannot give even that, that
 * write is refused with 507 `storage_full` before lmdb sees it: a clean, retryable failure
 * that loses and changes nothing.
 *
 * Extension allocates blocks with `fallocate(1)` (util-linux) where it exists: no data is
 * written, so the next fsync does not carry megabytes of zeros. Elsewhere it writes zeros.
 * fallocate runs from one small shell started at the first extension and kept for the
 * life of the data file: starting a process from lite forks lite, which blocked its event
 * loop for 5–8 ms per extension (6 % of lite's time in a 512 MiB append session, and a
 * latency spike for every ack in flight); the shell forks cheaply.
 * On copy-on-write filesystems (btrfs, zfs) an overwrite needs new blocks anyway, so the
 * guarantee is only as good as the filesystem's; ext4, xfs and tmpfs keep it.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, writeSync } from "node:fs";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { type SvcError, serverError } from "../../errors.js";

const MiB = 1024 * 1024;

/** Pages one write can dirty besides its data: a path of branch and leaf pages per database. */
export const WRITE_OVERHEAD = 64 * 1024;

/** Headroom never admitted, against estimates that fall short. */
const SLACK = MiB;

/** After a background extension failed (a nearly full disk), the next waits this long. */
const GROW_RETRY_MS = 1000;

export interface SpaceReserveOptions {
  /** The smallest extension (default 16 MiB; tests use less). */
  minChunk?: number;
  /** The largest extension (default 256 MiB). */
  maxChunk?: number;
}

function storageFull(detail: string): SvcError {
  return serverError(
    "storage_full",
    `the data directory's disk is full: ${detail}; nothing was written (free space and retry)`,
  );
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
  /** A background extension in progress, and when the last one failed. */
  private growing: Promise<void> | undefined;
  private grewInVainAt = 0;
  private readonly fallocate: Fallocate;

  constructor(
    private readonly file: string,
    private readonly measureUsed: () => number,
    opts: SpaceReserveOptions = {},
  ) {
    this.fallocate = new Fallocate(file);
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
    if (this.growing || Date.now() - this.grewInVainAt < GROW_RETRY_MS) return;
    const chunk = this.chunk();
    if (this.fileSize - this.used - this.admitted - SLACK >= chunk / 2) return;
    const end = this.fileSize;
    this.growing = this.extend(end, chunk)
      .then(
        () => {
          this.fileSize = Math.max(this.fileSize, this.sizeOnDisk());
        },
        () => {
          this.grewInVainAt = Date.now();
        },
      )
      .finally(() => {
        this.growing = undefined;
      });
  }

  /** Resolves once no background extension is running. */
  settled(): Promise<void> {
    return this.growing ?? Promise.resolve();
  }

  /** Stops the fallocate helper (the data file is being closed). */
  close(): void {
    this.fallocate.close();
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
    // A whole extension if the disk has it, else just what this write needs: a nearly full
    // disk still takes the writes that fit (asking for the extension alone refused them all).
    if (Date.now() - this.grewInVainAt >= GROW_RETRY_MS) {
      try {
        await this.extend(this.fileSize, want + this.chunk() - this.fileSize);
      } catch {
        this.grewInVainAt = Date.now(); // not that much space: try for less, and for a while only for less
      } finally {
        this.measure();
      }
      if (want <= this.fileSize) return;
    }
    try {
      await this.extend(this.fileSize, want - this.fileSize);
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

  /** Grows the file by `length` bytes at `offset` with allocated blocks. */
  private async extend(offset: number, length: number): Promise<void> {
    if (length <= 0) return;
    if (await this.fallocate.run(offset, length)) return;
    writeZeros(this.file, offset, length);
  }

  private sizeOnDisk(): number {
    const fd = openSync(this.file, "r");
    try {
      return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * `fallocate -o OFFSET -l LENGTH FILE`, run by one long-lived shell per file: lite writes
 * "OFFSET LENGTH" lines to it and reads one answer line each, "0" or "CODE MESSAGE".
 * Answers true once the blocks are allocated, false where fallocate cannot be used (not
 * installed, or the filesystem does not support it: the caller writes zeros instead), and
 * rejects with 507 `storage_full` when the disk cannot give the space.
 */
class Fallocate {
  private child: ChildProcessByStdio<Writable, Readable, null> | undefined;
  private works: boolean | undefined;
  private buffered = "";
  private waiting: Array<(line: string | undefined) => void> = [];

  constructor(private readonly file: string) {}

  async run(offset: number, length: number): Promise<boolean> {
    if (this.works === false) return false;
    let line = await this.ask(`${offset} ${length}\n`);
    if (line === undefined && this.works === true) line = await this.ask(`${offset} ${length}\n`); // the helper died: once more with a new one
    if (line === undefined) return (this.works = false); // no shell here: write zeros
    const [code, ...rest] = line.split(" ");
    const message = rest.join(" ").trim();
    if (code === "0") return (this.works = true);
    // Not installed, or not supported by this filesystem: fall back to writing zeros.
    if (code === "127" || /not supported/i.test(message)) return (this.works = false);
    throw storageFull(message || `fallocate exited ${code}`);
  }

  close(): void {
    this.child?.stdin.end();
    this.child = undefined;
  }

  private ask(request: string): Promise<string | undefined> {
    const child = this.child ?? this.start();
    // While an answer is awaited the helper's output keeps lite alive; idle, it never does.
    (child.stdout as Socket).ref();
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      child.stdin.write(request);
    });
  }

  private start(): ChildProcessByStdio<Writable, Readable, null> {
    const script =
      'while read -r o l; do if out=$(fallocate -o "$o" -l "$l" "$1" 2>&1); then echo 0; else echo "$? $(printf %s "$out" | tr "\\n" " ")"; fi; done';
    const child = spawn("sh", ["-c", script, "svc-fallocate", this.file], { stdio: ["pipe", "pipe", "ignore"] });
    const gone = (): void => {
      if (this.child === child) this.child = undefined;
      for (const w of this.waiting.splice(0)) w(undefined);
    };
    child.on("error", gone);
    child.on("exit", gone);
    child.stdin.on("error", () => undefined); // a dead helper is reported by "exit"
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      this.buffered += text;
      for (let nl = this.buffered.indexOf("\n"); nl >= 0; nl = this.buffered.indexOf("\n")) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.waiting.shift()?.(line);
      }
      if (this.waiting.length === 0) (child.stdout as Socket).unref();
    });
    // stdio pipes are sockets: unreferenced, the idle helper never keeps lite alive.
    child.unref();
    (child.stdin as Socket).unref();
    (child.stdout as Socket).unref();
    this.child = child;
    return child;
  }
}

/** Grows `file` by `length` bytes at `offset` by writing zeros (where fallocate cannot). */
function writeZeros(file: string, offset: number, length: number): void {
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
