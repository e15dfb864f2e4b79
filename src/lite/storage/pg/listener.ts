/**
 * A node's listening connection (`LISTEN svc_lite`), kept alive: every CHECK_MS it must
 * answer a `SELECT 1` within its deadline, and TCP keepalive runs under it. A connection that
 * fails the check, errors or ends is cut and made again every second. A connection that died
 * silently (a partition, a NAT or firewall that forgot it, a frozen host) therefore costs at
 * most CHECK_MS plus the deadline before it is replaced; meanwhile, and whenever the node
 * cannot listen, the poll of cluster.ts stands in for lost notifications.
 */
import pg from "pg";
import type { Primary } from "./primary.js";
import { answeredWithin, cut, endWithin } from "./wait.js";

export const CHANNEL = "svc_lite";
/** How often the listening connection must prove it is alive. */
const CHECK_MS = 1_000;
/** The most a check (or connecting and LISTEN) may take before the connection is made again. */
const CHECK_DEADLINE_MS = 2_000;
const RECONNECT_MS = 1_000;

export class Listener {
  private client: pg.Client | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Lost and not yet back (said once per outage in the log). */
  private lost = false;

  /**
   * `onPayload`: each notification's payload. `onBack`: listening (again): whatever changed
   * while it was not is unknown.
   */
  constructor(
    private readonly primary: Primary,
    private readonly log: (m: string) => void,
    private readonly pollMs: number,
    private readonly onPayload: (payload: string) => void,
    private readonly onBack: () => void,
    /** Lost: what was heard before may not hold on the database found next (a promoted standby). */
    private readonly onLost: () => void = () => {},
  ) {}

  start(): void {
    void this.connect();
  }

  /** Whether a listening connection is up now (it passed its last check). */
  get listening(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const c = new pg.Client({
      ...this.primary.options(CHECK_DEADLINE_MS),
      application_name: "svc lite listener",
    });
    let dropped = false;
    const drop = (why: string): void => {
      if (dropped) return;
      dropped = true;
      if (this.client === c) this.client = undefined;
      if (this.checkTimer && this.client === undefined) clearTimeout(this.checkTimer);
      cut(c); // a silent connection's end() would wait for an answer that never comes
      void c.end().catch(() => {});
      if (this.closed) return;
      if (!this.lost) this.onLost();
      if (!this.lost)
        this.log(
          `database notifications lost (${why}); polling every ${this.pollMs} ms and reconnecting every ${RECONNECT_MS / 1000} s`,
        );
      this.lost = true;
      setTimeout(() => void this.connect(), RECONNECT_MS).unref();
    };
    c.on("notification", (n) => this.onPayload(n.payload ?? ""));
    c.on("error", (e) => {
      this.primary.suspect(e);
      drop(e.message);
    });
    c.on("end", () => drop("connection closed"));
    try {
      await c.connect();
      await answeredWithin(c, CHECK_DEADLINE_MS, c.query(`LISTEN ${CHANNEL}`));
    } catch (e) {
      this.primary.suspect(e);
      return drop((e as Error).message);
    }
    if (dropped) return;
    if (this.closed) return drop("closing");
    this.client = c;
    if (this.lost) this.log("database notifications back");
    this.lost = false;
    this.onBack();
    this.scheduleCheck(c, drop);
  }

  /** The connection answers a check every CHECK_MS, or is dropped. */
  private scheduleCheck(c: pg.Client, drop: (why: string) => void): void {
    this.checkTimer = setTimeout(() => {
      if (this.client !== c) return;
      answeredWithin(c, CHECK_DEADLINE_MS, c.query("SELECT 1")).then(
        () => this.scheduleCheck(c, drop),
        (e: unknown) => drop(`no answer to a liveness check: ${(e as Error).message}`),
      );
    }, CHECK_MS);
    this.checkTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.checkTimer) clearTimeout(this.checkTimer);
    const c = this.client;
    this.client = undefined;
    if (c) await endWithin(c, 500);
  }
}
