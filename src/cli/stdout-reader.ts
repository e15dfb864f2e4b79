/**
 * Noticing that stdout's reader went away while nothing is being written, as `tail -f` does:
 * `first=$(svc read URI -f | head -1)` must return when `head` exits, not when the next record
 * (maybe never) makes a write fail with EPIPE.
 *
 * A pipe tells a writer that its last reader closed only by poll() reporting POLLERR on the
 * write end; Node has no poll() and only listens to a descriptor it reads from, and the handle
 * behind process.stdout is write-only. So, on Linux, when stdout is a pipe or FIFO, svc opens
 * the same pipe again through /proc/self/fd/1 (non-blocking: with no reader left the open itself
 * fails with ENXIO) and hands that descriptor to a stream handle that believes it may read from
 * it. Its "read" readiness is never signalled while a reader exists (the write end is never
 * readable), and when the last reader closes, the kernel reports POLLERR, libuv tries to read,
 * and the read fails (EBADF): that is the signal. The handle comes from Node's internal TCP
 * wrapper (`process.binding`, whose stream handles are opened read-write without asking the
 * descriptor), the one way Node offers to read-watch a descriptor it did not open; if any of
 * this is unavailable (another OS, a future Node), svc notices at the next write, as before.
 * The extra descriptor is a writer of the pipe like stdout itself and is closed when svc exits.
 */
import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { Socket } from "node:net";

interface TcpWrap {
  TCP: new (type: number) => { open(fd: number): number };
  constants: { SOCKET: number };
}

/** Calls `onGone` once when stdout is a pipe whose last reader has closed; returns a stop function. */
export function watchStdoutReader(onGone: () => void): () => void {
  if (process.platform !== "linux") return () => undefined;
  try {
    if (!fstatSync(1).isFIFO()) return () => undefined;
  } catch {
    return () => undefined;
  }
  let fd: number;
  try {
    fd = openSync("/proc/self/fd/1", constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (e) {
    // ENXIO: no reader is left already.
    if ((e as NodeJS.ErrnoException).code === "ENXIO") queueMicrotask(onGone);
    return () => undefined;
  }
  let socket: Socket;
  try {
    const wrap = (process as unknown as { binding(name: string): TcpWrap }).binding("tcp_wrap");
    const handle = new wrap.TCP(wrap.constants.SOCKET);
    if (handle.open(fd) !== 0) throw new Error("cannot watch stdout");
    socket = new Socket({ handle, readable: true, writable: false } as never);
  } catch {
    closeQuietly(fd);
    return () => undefined;
  }
  let stopped = false;
  socket.on("error", () => {
    if (!stopped) onGone();
  });
  socket.on("end", () => {
    if (!stopped) onGone();
  });
  socket.unref();
  socket.resume();
  return () => {
    stopped = true;
    socket.destroy();
  };
}

function closeQuietly(fd: number): void {
  try {
    // A descriptor that no handle took: closed here.
    closeSync(fd);
  } catch {
    // Already closed.
  }
}
