/**
 * One port for HTTP/1.1 and cleartext HTTP/2 with prior knowledge (protocol.md §6.1), as
 * s2-lite serves S2's SDK (docs/design/s2-compatibility.md, "s2-lite"). The first bytes
 * decide: the 24-byte preface `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`
 * means HTTP/2, anything else HTTP/1.1. Bytes are buffered until 24 have arrived or one
 * mismatches (TCP may split the preface).
 *
 * Both servers get the socket itself back with the sniffed bytes unshifted: node:http2 (since
 * Node 14.x, nodejs/node#35475) first reads what is buffered on the socket, then takes its
 * native handle. A JS Duplex relaying the socket (the former design) made every HTTP/2 byte
 * pass through JS and cut append-session throughput.
 */
import type { Socket } from "node:net";

const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
/**
 * Calls back with "h2" or "h1" and the bytes read so far; the socket is left paused. A
 * connection that has not told which within `timeoutMs` is dropped.
 */
export function sniffProtocol(
  socket: Socket,
  timeoutMs: number,
  decide: (protocol: "h1" | "h2", head: Buffer) => void,
): void {
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
