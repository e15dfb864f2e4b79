/**
 * stdout, opened on first use. Creating `process.stdout` loads Node's stream machinery (a file
 * or /dev/null gets a synchronous write stream, a pipe a socket): ~3 ms that a command printing
 * nothing on stdout (`svc append -q`) need not pay at start-up. Short texts written
 * before then (commander's help and version) go straight to file descriptor 1.
 */
import { fstatSync, statSync, writeSync } from "node:fs";

let stream: NodeJS.WriteStream | undefined;
let onError: ((e: NodeJS.ErrnoException) => void) | undefined;

/** The stdout stream (opened now if it was not). */
export function stdout(): NodeJS.WriteStream {
  if (stream === undefined) {
    stream = process.stdout;
    if (onError) stream.on("error", onError);
  }
  return stream;
}

/** Where write errors on stdout go (EPIPE: the reader went away), whichever way they happen. */
export function onStdoutError(handler: (e: NodeJS.ErrnoException) => void): void {
  onError = handler;
  stream?.on("error", handler);
}

let lastWork: (() => Promise<void>) | undefined;

/**
 * Work to finish when stdout's reader goes away, before main.ts's quiet exit 0 (a consumer's
 * last commit); its failure is reported as any error. `undefined` takes it back.
 */
export function beforeStdoutGoneExit(work: (() => Promise<void>) | undefined): void {
  lastWork = work;
}

export function stdoutGoneWork(): (() => Promise<void>) | undefined {
  return lastWork;
}

/** stdout's reader went away while nothing was being written (stdout-reader.ts): as an EPIPE. */
export function stdoutReaderGone(): void {
  const e: NodeJS.ErrnoException = new Error("stdout's reader went away");
  e.code = "EPIPE";
  onError?.(e);
}

export function stdoutOpened(): boolean {
  return stream !== undefined;
}

/**
 * The width of a terminal stdout, else undefined (help is then wrapped at 80). A file, a pipe or
 * /dev/null is recognised without opening the stream; anything else asks the stream.
 */
export function stdoutColumns(): number | undefined {
  if (stream === undefined && !mayBeTerminal()) return undefined;
  const s = stdout();
  return s.isTTY ? s.columns : undefined;
}

function mayBeTerminal(): boolean {
  try {
    const fd = fstatSync(1);
    return fd.isCharacterDevice() && fd.rdev !== statSync("/dev/null").rdev;
  } catch {
    return true;
  }
}

/**
 * Writes `text`: straight to the descriptor while the stream is not open and the text is short,
 * else (or for what a non-blocking descriptor did not take) through the stream, in order.
 */
export function writeStdoutText(text: string): void {
  if (stream === undefined && text.length <= 16_384) {
    const bytes = Buffer.from(text, "utf8");
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(1, bytes, done, bytes.length - done);
      return;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code !== "EAGAIN") {
        if (onError) return onError(err);
        throw err;
      }
      stdout().write(bytes.subarray(done));
      return;
    }
  }
  stdout().write(text);
}
