/**
 * What a streaming response needs from the HTTP layer, the same for HTTP/1.1 and HTTP/2 (the
 * request's Exchange gives it: http/exchange.ts): the request body as chunks, back-pressured
 * writes, and an end. Also the server's drain signal (SIGTERM), which sessions watch to set the
 * reconnect-advised flag and wind down.
 */

export interface SessionIO {
  /** The request body, as it arrives. */
  readonly chunks: AsyncIterable<Uint8Array>;
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

/** The server's shutdown signal as the sessions' drain signal. */
export function drainOf(signal: AbortSignal): Drain {
  return {
    get draining() {
      return signal.aborted;
    },
    onDrain(cb) {
      if (signal.aborted) {
        cb();
        return () => undefined;
      }
      signal.addEventListener("abort", cb, { once: true });
      return () => signal.removeEventListener("abort", cb);
    },
  };
}
