/**
 * What append sessions may hold of one server (protocol.md §6.5 item 7). An input read but not
 * yet acknowledged holds its metered bytes of a shared in-flight budget (128 MiB by default, as
 * the reference server; SVC_LITE_APPEND_BUDGET_BYTES), released once its ack is written, so a
 * client that reads no acks keeps holding what it sent. That one tenant cannot stall another's
 * appends, each holder's part is capped:
 *
 *   a session      an eighth of the shared budget, at most 16 MiB (svc keeps 5 MiB in flight)
 *   a connection   a quarter: the sessions of one HTTP/2 connection, or of one HTTP/1.1 socket
 *     a principal on it   half of that: the sessions of one bearer token on one connection (the
 *                  tenants a multiplexing proxy puts on one connection: one whose sessions stop
 *                  reading leaves the others on it the other half)
 *   a principal    a quarter: the sessions of one bearer token, the root token included
 *                  (with --no-auth everyone is one principal: only the session and connection
 *                  caps apply)
 *
 * and in time: a session whose client reads none of its waiting acks for `ackStallMs` (30 s by
 * default, SVC_LITE_ACK_STALL_MS) is ended (append-session.ts): it stops reading, gives back
 * what it holds as its inputs become durable, and its acks are followed by terminal 408
 * `request_timeout`; a client that still reads nothing for as long again has its stream reset.
 */
import { acquireEach, type Budget, ByteBudget } from "./byte-budget.js";

/** One session's budget: its own share, then its connection's, its principal's, the shared one. */
interface SessionBudget extends Budget {
  /** The session ended: its principal's share may be forgotten once nothing holds it. */
  close(): void;
}

/** A share of the budget held by a group of sessions, while any of them lives. */
interface Share {
  budget: ByteBudget;
  sessions: number;
}

export class AppendLimits {
  readonly shared: ByteBudget;
  private readonly principals = new Map<string, Share>();
  /** Each connection's share (key ""), and its principals' shares of it. */
  private readonly connections = new WeakMap<object, Map<string, Share>>();

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

  /** The cap of one principal's sessions on one connection. */
  get connectionPrincipalCap(): number {
    return Math.max(this.sessionCap, Math.floor(this.groupCap / 2));
  }

  /**
   * The budget of a new session of `principal` (undefined: no principal cap) on `connection`
   * (the HTTP/2 session or the HTTP/1.1 socket). Call `close()` when the session ends.
   */
  open(principal: string | undefined, connection: object): SessionBudget {
    let shares = this.connections.get(connection);
    if (shares === undefined) this.connections.set(connection, (shares = new Map()));
    // Narrowest first: the principal's share of the connection, the connection's, the principal's.
    const held: [Map<string, Share>, string, number][] = [];
    if (principal !== undefined) held.push([shares, `of ${principal}`, this.connectionPrincipalCap]);
    held.push([shares, "", this.groupCap]);
    if (principal !== undefined) held.push([this.principals, principal, this.groupCap]);
    const chain = [new ByteBudget(this.sessionCap)];
    for (const [map, key, cap] of held) chain.push(this.join(map, key, cap));
    chain.push(this.shared);
    let closed = false;
    return {
      acquire: (bytes) => acquireEach(chain, bytes),
      close: () => {
        if (closed) return;
        closed = true;
        for (const [map, key] of held) {
          const share = map.get(key)!;
          // Kept while bytes are held (inputs of a gone session settle later) or sessions remain.
          if (--share.sessions === 0 && share.budget.inUse === 0) map.delete(key);
        }
      },
    };
  }

  private join(map: Map<string, Share>, key: string, cap: number): ByteBudget {
    let share = map.get(key);
    if (share === undefined) map.set(key, (share = { budget: new ByteBudget(cap), sessions: 0 }));
    share.sessions++;
    return share.budget;
  }
}
