/**
 * Answers complete but not yet sent (docs/security.md, section 1). An HTTP/2 client can leave
 * every answer it asked for unread (window 0, a PING now and then to stay alive): each such
 * stream stays open, and held some 10 KB of lite's memory, for as long as the client liked. So
 * an answer, once complete (its end written), must be sent within `deadlineMs`, and one
 * connection may have at most `perConnection` of them waiting while it sends none: past the
 * deadline, or when a connection past the count sends no answer for STALL_MS, the oldest are
 * cut off (an HTTP/2 stream reset, an HTTP/1.1 connection closed). A client that sends some
 * answers and holds others is bounded by the deadline and by its streams per connection. A client that reads what it asked for never
 * meets either.
 */

/** How long a connection past its count may go without sending an answer before it is cut down. */
const STALL_MS = 1000;

interface ConnectionAnswers {
  answers: Set<Answer>;
  /** A judgment is pending. */
  checking: boolean;
  /** When an answer of it was last sent (ms epoch). */
  lastSent: number;
}

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
  private readonly byConnection = new WeakMap<object, ConnectionAnswers>();
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
    if (mine === undefined) this.byConnection.set(conn, (mine = { answers: new Set(), checking: false, lastSent: 0 }));
    const now = Date.now();
    mine.answers.add(a);
    this.waiting.set(a, now + this.deadlineMs);
    const set = mine.answers;
    const owner = mine;
    a.onClose(() => {
      // Cut answers were removed first: one still here was sent.
      if (set.delete(a)) owner.lastSent = Date.now();
      this.waiting.delete(a);
    });
    this.arm();
    if (set.size > this.perConnection && !mine.checking) this.judge(mine, now);
  }

  /**
   * A connection past its count: cut the oldest down to the count unless it sent an answer in
   * the next STALL_MS (a client that reads may ask a thousand things at once, and their answers
   * take a while to go out); while it keeps sending, judged again.
   */
  private judge(mine: ConnectionAnswers, since: number): void {
    mine.checking = true;
    setTimeout(() => {
      mine.checking = false;
      if (mine.answers.size <= this.perConnection) return;
      if (mine.lastSent >= since) return this.judge(mine, Date.now());
      while (mine.answers.size > this.perConnection) this.cut(mine.answers.values().next().value!);
    }, STALL_MS).unref();
  }

  private cut(a: Answer): void {
    this.byConnection.get(a.connection)?.answers.delete(a);
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
