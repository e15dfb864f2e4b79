/**
 * Where records go: stdout (default) or `-o FILE` (truncated; `--append-output` appends). Each
 * write is one whole batch, so an interrupt leaves output at a record boundary, and each write
 * waits for the stream to drain (bounded memory with a slow reader). A closed stdout pipe is
 * handled once, in main.ts (exit 0, nothing on stderr).
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { ioError } from "../failure.js";
import { stdout } from "../stdout.js";

export class RecordWriter {
  private failure: Error | undefined;

  private constructor(private readonly stream: NodeJS.WritableStream, private readonly file: WriteStream | undefined, readonly path: string | undefined) {
    file?.on("error", (e) => { this.failure = e; });
  }

  static async open(path: string | undefined, append = false): Promise<RecordWriter> {
    if (path === undefined || path === "-") return new RecordWriter(stdout(), undefined, undefined);
    const file = createWriteStream(path, { flags: append ? "a" : "w" });
    await new Promise<void>((resolve, reject) => {
      file.once("open", () => resolve());
      file.once("error", (e) => reject(ioError(`cannot open ${path} for writing: ${e.message}`, e)));
    });
    return new RecordWriter(file, file, path);
  }

  get isFile(): boolean {
    return this.file !== undefined;
  }

  write(chunk: string | Uint8Array): Promise<void> {
    if (this.failure) return Promise.reject(this.writeError(this.failure));
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => reject(this.writeError(e));
      if (this.file) this.file.once("error", onError);
      const done = (): void => {
        this.file?.off("error", onError);
        resolve();
      };
      if (this.stream.write(chunk)) done();
      else this.stream.once("drain", done);
    });
  }

  /** Flushes and closes a file; for stdout, waits until what was written has been handed off. */
  async close(): Promise<void> {
    if (this.file) {
      await new Promise<void>((resolve, reject) => this.file!.end((e?: Error | null) => (e ? reject(this.writeError(e)) : resolve())));
      return;
    }
    await new Promise<void>((resolve) => this.stream.write("", () => resolve()));
  }

  private writeError(e: Error): Error {
    return ioError(`cannot write to ${this.path ?? "stdout"}: ${e.message}`, e);
  }
}
