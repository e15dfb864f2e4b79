/**
 * One port for HTTP/1.1 and cleartext HTTP/2 with prior knowledge (protocol.md §6.1,
 * lite-anchor.md §5). The first bytes decide: the 24-byte preface `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`
 * means HTTP/2, anything else HTTP/1.1. Bytes are buffered until 24 have arrived or one
 * mismatches (TCP may split the preface).
 *
 * HTTP/1.1 gets the socket back with the bytes unshifted. HTTP/2 cannot: node:http2 reads the
 * socket handle directly, so unshifted bytes are lost (verified on this machine). It gets a
 * Duplex that REPLAYS the sniffed bytes and then relays the socket.
 */
import { Duplex } from "node:stream";
import type { Socket } from "node:net";

export const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
/**
 * Calls back with "h2" or "h1" and the bytes read so far; the socket is left paused. A
 * connection that has not told which within `timeoutMs` is dropped.
 */
export function sniffProtocol(socket: Socket, timeoutMs: number, decide: (protocol: "h1" | "h2", head: Buffer) => void): void {
  let head: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  timer.unref();
  const finish = (protocol: "h1" | "h2"): void => {
    clearTimeout(timer);
    socket.removeListener("data", onData);
    socket.removeListener("end", onEnd);
    socket.pause();
    decide(protocol, head);
  };
  const onData = (chunk: Buffer): void => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const n = Math.min(head.length, H2_PREFACE.length);
    if (head.subarray(0, n).compare(H2_PREFACE, 0, n) !== 0) return finish("h1");
    if (head.length >= H2_PREFACE.length) finish("h2");
  };
  const onEnd = (): void => finish("h1");
  socket.on("data", onData);
  socket.on("end", onEnd);
  socket.on("error", () => clearTimeout(timer));
}

/** A socket stand-in for http2: the sniffed bytes first, then whatever the socket reads. */
export class ReplaySocket extends Duplex {
  constructor(private readonly socket: Socket, head: Buffer) {
    super({ allowHalfOpen: true });
    if (head.length > 0) this.push(head);
    socket.on("data", (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on("end", () => this.push(null));
    socket.on("error", (e) => this.destroy(e));
    socket.on("close", () => this.destroy());
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.socket.write(chunk, cb);
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (e?: Error | null) => void): void {
    this.socket.cork();
    for (const c of chunks) this.socket.write(c.chunk);
    this.socket.uncork();
    // Completion of the last write stands for all of them.
    this.socket.write(Buffer.alloc(0), cb);
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.socket.end(cb);
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.socket.destroy(err ?? undefined);
    cb(err);
  }

  // node:http2 reads these from its transport socket.
  get remoteAddress(): string | undefined { return this.socket.remoteAddress; }
  get remotePort(): number | undefined { return this.socket.remotePort; }
  get remoteFamily(): string | undefined { return this.socket.remoteFamily; }
  get localAddress(): string | undefined { return this.socket.localAddress; }
  get localPort(): number | undefined { return this.socket.localPort; }
  get encrypted(): boolean { return false; }
  setNoDelay(noDelay?: boolean): this { this.socket.setNoDelay(noDelay); return this; }
  setKeepAlive(enable?: boolean, delay?: number): this { this.socket.setKeepAlive(enable, delay); return this; }
  setTimeout(ms: number, cb?: () => void): this { this.socket.setTimeout(ms, cb); return this; }
  ref(): this { this.socket.ref(); return this; }
  unref(): this { this.socket.unref(); return this; }
}
