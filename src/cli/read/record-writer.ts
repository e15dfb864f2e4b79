/**
 * Where records go: stdout (default) or `-o FILE` (truncated; `--append-output` appends). Each
 * write is one whole batch, so an interrupt leaves output at a record boundary, and each write
 * waits for the stream to drain (bounded memory with a slow reader). A closed stdout pipe is
 * handled once, in main.ts (exit 0, nothing on stderr), whether a write meets it or, while the
 * read waits for records, stdout-reader.ts notices it (`svc read -f | head -1` returns at once). A file is checked for writing at once
 * but opened (truncated) only at the first write or at a successful close: a read that fails
 * before printing anything leaves an existing file as it was.
 */
import { accessSync, constants, createWriteStream, existsSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import { ioError } from "../failure.js";
import { stdout, stdoutReaderGone } from "../stdout.js";
import { watchStdoutReader } from "../stdout-reader.js";

export class RecordWriter {
  private failure: Error | undefined;
  private file: WriteStream | undefined;
  private stopWatch: (() => void) | undefined;

  private constructor(
    private readonly out: NodeJS.WritableStream | undefined,
    readonly path: string | undefined,
    private readonly append: boolean,
  ) {}

  static async open(path: string | undefined, append = false): Promise<RecordWriter> {
    if (path === undefined || path === "-") {
      const writer = new RecordWriter(stdout(), undefined, false);
      writer.stopWatch = watchStdoutReader(stdoutReaderGone);
      return writer;
    }
    try {
      accessSync(existsSync(path) ? path : dirname(path), constants.W_OK);
    } catch (e) {
      throw ioError(`cannot open ${path} for writing: ${(e as Error).message}`, e as Error);
    }
    return new RecordWriter(undefined, path, append);
  }

  get isFile(): boolean {
    return this.path !== undefined;
  }

  /** stdout, or the file, opened now if it was not yet. */
  private stream(): NodeJS.WritableStream {
    if (this.out) return this.out;
    if (!this.file) {
      this.file = createWriteStream(this.path!, { flags: this.append ? "a" : "w" });
      this.file.on("error", (e) => {
        this.failure = e;
      });
    }
    return this.file;
  }

  /**
   * Resolves once `chunk` is taken: for a file, once it is written (its callback), so that a
   * checkpoint stored after it never names records the file lacks (a full disk fails the write
   * itself); for stdout, once the stream takes it (a failure there ends the process: main.ts).
   */
  write(chunk: string | Uint8Array): Promise<void> {
    const stream = this.stream();
    if (this.failure) return Promise.reject(this.writeError(this.failure));
    if (this.file) {
      const file = this.file;
      return new Promise((resolve, reject) =>
        file.write(chunk, (e?: Error | null) => (e ? reject(this.writeError(e)) : resolve())),
      );
    }
    return new Promise((resolve) => {
      if (stream.write(chunk)) resolve();
      else stream.once("drain", () => resolve());
    });
  }

  /**
   * Whether everything written so far has been handed to the OS (the descriptor took it): true
   * once it has, false when a write failed (stdout's reader went away: EPIPE).
   */
  flushed(): Promise<boolean> {
    const stream = this.out ?? this.file;
    if (stream === undefined || this.failure) return Promise.resolve(this.failure === undefined);
    return new Promise((resolve) => {
      stream.write("", (e?: Error | null) => resolve(!e));
    });
  }

  /** Flushes and closes a file (made now, empty, if nothing was written); for stdout, waits until what was written has been handed off. */
  async close(): Promise<void> {
    if (this.path !== undefined) {
      const file = this.stream() as WriteStream;
      if (this.failure) throw this.writeError(this.failure);
      await new Promise<void>((resolve, reject) =>
        file.end((e?: Error | null) => (e ? reject(this.writeError(e)) : resolve())),
      );
      return;
    }
    this.stopWatch?.();
    await new Promise<void>((resolve) => this.out!.write("", () => resolve()));
  }

  private writeError(e: Error): Error {
    return ioError(`cannot write to ${this.path ?? "stdout"}: ${e.message}`, e);
  }
}
