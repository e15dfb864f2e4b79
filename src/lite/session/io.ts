/**
 * What a streaming response needs from the HTTP layer, the same for HTTP/1.1 and HTTP/2 (the
 * request's Exchange gives it: http/exchange.ts): the request body as chunks, back-pressured
 * writes, writes that do not wait (the live fan-out's), and an end. Also the server's drain
 * signal (SIGTERM), which sessions watch to set the reconnect-advised flag and wind down.
 */

/**
 * How much a follower's connection may hold unsent before it leaves the live path (then it waits
 * until its connection has sent everything, and catches up from storage): at most this many
 * bytes (plus the batch that crossed them), and at most LIVE_SLACK_WRITES live batches. So a
 * reader that keeps up is not sent back to storage by one large batch, while one that stopped
 * reading holds about one batch of the server's memory, whatever the batches' size (their bytes
 * are shared with every other follower; what is its own is a write's bookkeeping).
 */
export const LIVE_SLACK_BYTES = 256 * 1024;
export const LIVE_SLACK_WRITES = 2;

export interface SessionIO {
  /** The request body, as it arrives. */
  readonly chunks: AsyncIterable<Uint8Array>;
  /** Writes response bytes; resolves when the connection can take more. */
  write(bytes: Uint8Array): Promise<void>;
  /** Writes several pieces in order, as one write would write their concatenation. */
  writev(pieces: readonly Uint8Array[]): Promise<void>;
  /**
   * Writes pieces in order at once: false once more than LIVE_SLACK_BYTES, or more than
   * LIVE_SLACK_WRITES of these writes, wait to be sent (the writer should stop and wait for
   * `drained`).
   */
  writeNow(pieces: readonly Uint8Array[]): boolean;
  /** Resolves when the connection can take more and has sent every `writeNow` (or is gone). */
  drained(): Promise<void>;
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
  /** Calls `cb` once when draining starts (at once if it already has); returns an unsubscribe function. */
  onDrain(cb: () => void): () => void;
}

/**
 * The server's drain signal: one for the whole server, which every session and long-poll
 * watches through a set of its own (a listener per session on one AbortSignal made Node warn of
 * a leak past ten, and cost an add and a remove per session).
 */
export class DrainSignal implements Drain {
  private started = false;
  private readonly callbacks = new Set<() => void>();

  get draining(): boolean {
    return this.started;
  }

  onDrain(cb: () => void): () => void {
    if (this.started) {
      cb();
      return () => undefined;
    }
    this.callbacks.add(cb);
    return () => this.callbacks.delete(cb);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    const all = [...this.callbacks];
    this.callbacks.clear();
    for (const cb of all) cb();
  }
}
