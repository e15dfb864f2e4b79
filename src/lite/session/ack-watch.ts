/**
 * Watches an append session's ack writes for a client that reads none: a write that has not
 * completed after `stallMs` (the client's HTTP/2 window or the socket's buffer stayed full all
 * that time) makes the session stalled, once: `onStall` runs, and if the session is still not
 * over `stallMs` later, `onGiveUp`. One timer per session, re-armed at most once per `stallMs`.
 */
import { type SvcError, serverError } from "../../errors.js";

export class AckWatch {
  stalled = false;
  /** When the write being awaited started, if one is. */
  private since: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    /** undefined: never stalled. */
    readonly stallMs: number | undefined,
    private readonly onStall: () => void,
    private readonly onGiveUp: () => void,
  ) {}

  /** Awaits one write of the session. */
  async write(written: Promise<void>): Promise<void> {
    if (this.stallMs === undefined || this.stalled) return written;
    this.since = performance.now();
    this.timer ??= setTimeout(() => this.check(), this.stallMs);
    try {
      await written;
    } finally {
      this.since = undefined;
    }
  }

  /** The session is over. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private check(): void {
    this.timer = undefined;
    if (this.stopped || this.since === undefined || this.stallMs === undefined) return;
    const waited = performance.now() - this.since;
    if (waited < this.stallMs) {
      this.timer = setTimeout(() => this.check(), this.stallMs - waited);
      return;
    }
    this.stalled = true;
    this.onStall();
    this.timer = setTimeout(() => {
      if (!this.stopped) this.onGiveUp();
    }, this.stallMs);
  }
}

/** The terminal error of a session ended for its unread acks. */
export function unreadAcks(stallMs: number | undefined): SvcError {
  return serverError(
    "request_timeout",
    `the client read no acks for ${(stallMs ?? 0) / 1000} s while they waited: the session is ended after the acks of every input it read (inputs sent after them were not read); reconnect and read acks as they come`,
  );
}
