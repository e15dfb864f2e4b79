/**
 * The sweep's leadership as a lease in a table (`svc_leases`: name, holder, expires_at), so
 * that only a node that keeps answering keeps it. Every node tries every term/3 to take or
 * renew it in one conditional statement, timed by the database's clock (`now()`): a node takes
 * it when it is free or expired, the holder pushes its expiry one term on. A holder that dies,
 * is cut off or hangs stops renewing; the lease expires within a term of its last renewal and
 * the next node to try (within term/3) takes it. Its row is written only by the nodes' role: a
 * role that may only connect cannot hold it (the session advisory lock before could be held by
 * any connection, a dead one's included, for ever).
 *
 * Fencing by time: the holder counts its term from when it SENT the renewal, on its own
 * monotonic clock, and stops leading a tenth of a term before that ends. The database counts
 * from when it ran the statement (later), so the holder has stopped before any other node can
 * take over, whatever the renewal's answer took. Each attempt has a deadline of term/3, so one
 * never waits on another and a renewal that cannot be answered in time is given up. The sweep
 * needs no stronger fence: every change it makes is conditional on what is stored, and any node
 * sweeps after a trim or deletion made through it, so two nodes sweeping at once is only work
 * done twice.
 *
 * A step of the database's clock: a holder renews for one term from now(), so an expiry more
 * than a term ahead of now() can only be left by a clock that stepped back (or a hand), and is
 * judged expired: a holder that died just as the clock stepped back an hour is taken over
 * within a term and a third, not an hour. (A holder that lives renews by its own name, whatever
 * the expiry; if another node took the lease meanwhile, both sweep for a moment: work done twice.)
 * A step forward only ends a lease early.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "./db.js";

const NAME = "sweep";

export class SweepLease {
  /** This node leads until then (performance.now()); 0: it does not. */
  private until = 0;
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private lapse: NodeJS.Timeout | undefined;
  private inflight: Promise<void> | undefined;
  private closed = false;
  /** The last attempt failed (said once per outage in the log). */
  private failing = false;
  /** Who this node is in the table: host, pid and a random part (a restarted node is another). */
  readonly holder = `${hostname()} pid ${process.pid} ${randomBytes(4).toString("hex")}`;

  constructor(
    private readonly db: Db,
    private readonly log: (m: string) => void,
    readonly termMs: number,
  ) {}

  start(): void {
    this.next();
  }

  private next(): void {
    if (this.closed) return;
    this.inflight = this.attempt();
  }

  /** Whether this node leads now; never waits (the lease is renewed in the background). */
  held(): boolean {
    const now = performance.now() < this.until;
    if (!now && this.leading) {
      this.leading = false;
      this.log("this node no longer runs the periodic sweep (its lease was not renewed in time)");
    }
    return now;
  }

  private get everyMs(): number {
    return Math.max(1, Math.floor(this.termMs / 3));
  }

  private async attempt(): Promise<void> {
    const sent = performance.now();
    try {
      const r = await this.db.write(
        `UPDATE svc_leases SET holder = $2, expires_at = pg_catalog.now() + $3 * interval '1 millisecond'
         WHERE name = $1 AND (holder = $2 OR expires_at <= pg_catalog.now()
           OR expires_at > pg_catalog.now() + $3 * interval '1 millisecond')`,
        [NAME, this.holder, this.termMs],
        { ms: this.everyMs },
      );
      if (this.failing) this.log("the sweep's lease can be renewed again");
      this.failing = false;
      if (r.rowCount === 1) {
        this.until = sent + this.termMs * 0.9;
        // Said when it lapses, not when next asked: an operator sees the hand-over in order.
        clearTimeout(this.lapse);
        this.lapse = setTimeout(() => this.held(), this.until - performance.now() + 1);
        this.lapse.unref();
        if (!this.leading && !this.closed) {
          this.leading = true;
          this.log("this node now runs the periodic sweep (one node at a time: trims, retention, deletions)");
        }
      } else {
        if (this.leading) this.log("this node no longer runs the periodic sweep (another node holds its lease)");
        this.until = 0;
        this.leading = false;
      }
    } catch (e) {
      // The lease lapses by itself (held() says so) unless a later attempt renews it in time.
      if (!this.failing) this.log(`the sweep's lease could not be renewed or taken: ${(e as Error).message}`);
      this.failing = true;
    }
    if (this.closed) return;
    this.timer = setTimeout(() => this.next(), Math.max(0, sent + this.everyMs - performance.now()));
    this.timer.unref();
  }

  /** Stops renewing; a lease held is given up at once (another node takes it at its next try). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.lapse);
    await this.inflight;
    const held = this.until > performance.now();
    this.until = 0;
    if (!held) return;
    await this.db
      .write(
        "UPDATE svc_leases SET expires_at = pg_catalog.now() WHERE name = $1 AND holder = $2",
        [NAME, this.holder],
        {
          ms: this.everyMs,
        },
      )
      .catch(() => undefined);
  }
}
