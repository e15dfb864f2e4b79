/**
 * What append sessions may hold of one server (protocol.md §6.5 item 7). An input read but not
 * yet acknowledged holds its metered bytes of a shared in-flight budget (128 MiB by default, as
 * the reference server; SVC_LITE_APPEND_BUDGET_BYTES), released once its ack is written, so a
 * client that reads no acks keeps holding what it sent. That one tenant cannot stall another's
 * appends, each holder's part is capped:
 *
 *   a session      an eighth of the shared budget, at most 16 MiB (svc keeps 5 MiB in flight)
 *   a connection   a quarter: the sessions of one HTTP/2 connection, or of one HTTP/1.1 socket
 *   a principal    a quarter: the sessions of one bearer token, the root token included
 *                  (with --no-auth everyone is one principal: only the caps above apply)
 *
 * and in time: a session whose client reads none of its waiting acks for `ackStallMs` (30 s by
 * default, SVC_LITE_ACK_STALL_MS) is ended (append-session.ts): it stops reading, gives back
 * what it holds as its inputs become durable, and its acks are followed by terminal 408
 * `request_timeout`; a client that still reads nothing for as long again has its stream reset.
 */
import { acquireEach, ByteBudget, type Budget } from "./byte-budget.js";

/** One session's budget: its own share, then its connection's, its principal's, the shared one. */
interface SessionBudget extends Budget {
  /** The session ended: its principal's share may be forgotten once nothing holds it. */
  close(): void;
}

export class AppendLimits {
  readonly shared: ByteBudget;
  private readonly principals = new Map<string, { budget: ByteBudget; sessions: number }>();
  private readonly connections = new WeakMap<object, ByteBudget>();

  constructor(
    /** Append bytes accepted but not yet acknowledged, across all sessions. */
    limit: number,
    /** How long a session's acks may wait unread before the session is ended. */
    readonly ackStallMs: number,
  ) {
    this.shared = new ByteBudget(limit);
  }

  get sessionCap(): number {
    return Math.min(16 << 20, Math.max(1 << 20, Math.floor(this.shared.limit / 8)));
  }

  /** The cap of one connection's sessions, and of one principal's. */
  get groupCap(): number {
    return Math.max(this.sessionCap, Math.floor(this.shared.limit / 4));
  }

  /**
   * The budget of a new session of `principal` (undefined: no principal cap) on `connection`
   * (the HTTP/2 session or the HTTP/1.1 socket). Call `close()` when the session ends.
   */
  open(principal: string | undefined, connection: object): SessionBudget {
    let conn = this.connections.get(connection);
    if (conn === undefined) this.connections.set(connection, (conn = new ByteBudget(this.groupCap)));
    const chain = [new ByteBudget(this.sessionCap), conn];
    let entry: { budget: ByteBudget; sessions: number } | undefined;
    if (principal !== undefined) {
      entry = this.principals.get(principal);
      if (entry === undefined)
        this.principals.set(principal, (entry = { budget: new ByteBudget(this.groupCap), sessions: 0 }));
      entry.sessions++;
      chain.push(entry.budget);
    }
    chain.push(this.shared);
    let closed = false;
    return {
      acquire: (bytes) => acquireEach(chain, bytes),
      close: () => {
        if (closed || entry === undefined || principal === undefined) return;
        closed = true;
        // Kept while bytes are held (inputs of a gone session settle later) or sessions remain.
        if (--entry.sessions === 0 && entry.budget.inUse === 0) this.principals.delete(principal);
      },
    };
  }
}
