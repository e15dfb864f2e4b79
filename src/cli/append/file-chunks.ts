/**
 * A file's bytes in chunks of up to 256 KiB, for `svc append -i FILE`. Not fs.createReadStream:
 * its first use loads a dozen stream modules, 5-10 ms of a one-shot `svc append -i FILE`.
 *
 * A regular file is read with readSync, with a turn of the event loop (setImmediate) before
 * each chunk so acks, socket writes and signals keep flowing. An asynchronous read hands each
 * chunk to a thread of libuv's pool and back, and on busy cores waking that thread costs the
 * main thread its turn: in profiles of a 256 MiB append that hand-off was 14-16 % of the
 * process's time, more than parsing every line. Anything else (a FIFO, a terminal,
 * /dev/stdin) may block for as long as its writer likes, so it is read asynchronously.
 *
 * `destroy` closes the file once no read is in flight; reading then ends.
 */
import { close, fstat, open as openFile, read, readSync } from "node:fs";

type Chunks = AsyncIterable<Buffer> & { destroy(): void };

const CHUNK_BYTES = 256 * 1024;

export function fileChunks(path: string): Chunks {
  let fd: number | undefined;
  let reading = false;
  let done = false;
  const closeNow = (): void => {
    if (fd !== undefined) close(fd, () => undefined);
    fd = undefined;
  };
  return {
    async *[Symbol.asyncIterator]() {
      fd = await new Promise<number>((resolve, reject) => openFile(path, "r", (e, f) => (e ? reject(e) : resolve(f))));
      try {
        const regular = await new Promise<boolean>((resolve, reject) =>
          fstat(fd!, (e, st) => (e ? reject(e) : resolve(st.isFile()))),
        );
        while (!done) {
          const buf = Buffer.allocUnsafe(CHUNK_BYTES);
          reading = true;
          const n = await (regular ? readNow(fd, buf) : readLater(fd, buf)).finally(() => {
            reading = false;
          });
          if (n === 0 || done) return;
          yield n === buf.length ? buf : buf.subarray(0, n);
        }
      } finally {
        done = true;
        closeNow();
      }
    },
    destroy() {
      done = true;
      if (!reading) closeNow();
    },
  };
}

/** After a turn of the event loop, a synchronous read of what a regular file holds (never waits for a writer). */
function readNow(fd: number, buf: Buffer): Promise<number> {
  return new Promise((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(readSync(fd, buf, 0, buf.length, null));
      } catch (e) {
        reject(e);
      }
    }),
  );
}

function readLater(fd: number, buf: Buffer): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, buf.length, null, (e, k) => (e ? reject(e) : resolve(k))));
}
