/**
 * Answers complete but not yet sent (docs/security.md, section 1). An HTTP/2 client can leave
 * every answer it asked for unread (window 0, a PING now and then to stay alive): each such
 * stream stays open, and held some 10 KB of lite's memory, for as long as the client liked. So
 * an answer, once complete (its end written), must be sent within `deadlineMs`, and one
 * connection may have at most `perConnection` of them waiting: past the deadline, or when a
 * further answer would exceed the count, the oldest is cut off (its HTTP/2 stream reset, its
 * HTTP/1.1 connection closed). A client that reads what it asked for never meets either.
 */

/** A response that can be cut off (response-stream.ts). */
interface Answer {
  readonly closed: boolean;
  /** The HTTP/2 session or the HTTP/1.1 socket it goes out on. */
  readonly connection: object;
  onClose(cb: () => void): () => void;
  abort(): void;
}

export class UnsentAnswers {
  /** Every answer waiting, with its deadline; in the order they completed, so by deadline too. */
  private readonly waiting = new Map<Answer, number>();
  private readonly byConnection = new WeakMap<object, Set<Answer>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deadlineMs: number,
    private readonly perConnection: number,
  ) {}

  /** `a` has written its end: it is watched until it is sent (its response closes). */
  completed(a: Answer): void {
    if (a.closed || this.waiting.has(a)) return;
    const conn = a.connection;
    let mine = this.byConnection.get(conn);
    if (mine === undefined) this.byConnection.set(conn, (mine = new Set()));
    while (mine.size >= this.perConnection) this.cut(mine.values().next().value!);
    mine.add(a);
    this.waiting.set(a, Date.now() + this.deadlineMs);
    const set = mine;
    a.onClose(() => {
      set.delete(a);
      this.waiting.delete(a);
    });
    this.arm();
  }

  private cut(a: Answer): void {
    this.byConnection.get(a.connection)?.delete(a);
    this.waiting.delete(a);
    a.abort();
  }

  private arm(): void {
    if (this.timer !== undefined) return;
    const first = this.waiting.values().next();
    if (first.done) return;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, first.value - Date.now()));
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const [a, deadline] of this.waiting) {
      if (deadline > now) break;
      this.cut(a);
    }
    this.arm();
  }
}
