/**
 * What a streaming response needs from the HTTP layer, the same for HTTP/1.1 and HTTP/2:
 * the request body as chunks, back-pressured writes, and an end. Also the server's drain
 * signal (SIGTERM), which sessions watch to set the reconnect-advised flag and wind down.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";

export interface SessionIO {
  /** The request body. */
  body: AsyncIterable<Uint8Array>;
  /** Writes response bytes; resolves when the connection can take more. */
  write(bytes: Uint8Array): Promise<void>;
  /** Writes several pieces in order, as one write would write their concatenation. */
  writev(pieces: readonly Uint8Array[]): Promise<void>;
  /** Ends the response. */
  end(): void;
  /** Cuts the response off (no end: the client sees a lost connection). */
  abort(): void;
  /** True once the client went away. */
  readonly closed: boolean;
  /** Calls `cb` once when the client goes away; returns an unsubscribe function. */
  onClose(cb: () => void): () => void;
}

export interface Drain {
  readonly draining: boolean;
  /** Calls `cb` once when draining starts (at once if it already has). */
  onDrain(cb: () => void): () => void;
}

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

/** Adapts a node:http or http2-compat request/response pair. Headers must already be sent. */
export function sessionIO(req: Req, res: Res): SessionIO {
  let closed = false;
  const listeners = new Set<() => void>();
  const markClosed = (): void => {
    if (closed) return;
    closed = true;
    for (const cb of [...listeners]) cb();
    listeners.clear();
  };
  res.once("close", markClosed);
  const writev = (pieces: readonly Uint8Array[]): Promise<void> => {
    if (closed) return Promise.resolve();
    let ok = true;
    for (const p of pieces) ok = (res as ServerResponse).write(p);
    if (ok) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => { res.off("drain", done); res.off("close", done); resolve(); };
      res.once("drain", done);
      res.once("close", done);
    });
  };
  return {
    body: req as AsyncIterable<Uint8Array>,
    get closed() { return closed; },
    write: (bytes) => writev([bytes]),
    writev,
    end() {
      if (!closed && !res.writableEnded) res.end();
    },
    abort() {
      if (closed) return;
      const stream = (res as Http2ServerResponse).stream as { close?: (code: number) => void } | undefined;
      if (stream?.close) stream.close(2); // NGHTTP2_INTERNAL_ERROR: this stream only
      else (res as ServerResponse).destroy();
    },
    onClose(cb) {
      if (closed) { cb(); return () => undefined; }
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
  };
}

/** The server's shutdown signal as the sessions' drain signal. */
export function drainOf(signal: AbortSignal): Drain {
  return {
    get draining() { return signal.aborted; },
    onDrain(cb) {
      if (signal.aborted) { cb(); return () => undefined; }
      signal.addEventListener("abort", cb, { once: true });
      return () => signal.removeEventListener("abort", cb);
    },
  };
}
