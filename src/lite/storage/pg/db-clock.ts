/**
 * The database's clock as a node keeps it: every node stamps arrivals and judges retention,
 * delete-on-empty's minimum age and deletion grace by it, so one node's wrong clock (hours off,
 * or stepped by NTP) never removes a record younger than its retention nor a stream younger than
 * its minimum age. Each node had used its own Date.now(): with one clock 2 h off, records with
 * 1 h retention were removed at once.
 *
 * A reading: `clock_timestamp()` with the round trip halved, taken at start (before the node
 * serves) and every MEASURE_EVERY_MS. Between readings the node counts on from the last one
 * with its monotonic clock (which no step of the wall clock moves). A reading is off by at most
 * half its round trip, plus DRIFT of the time since. A newer reading replaces the one in use
 * when it is at least as certain as that one is by then (a reading over a slow round trip does
 * not replace a good one). While the uncertainty exceeds MAX_UNCERTAINTY_MS (readings fail, or
 * every round trip is slow) the sweep judges no ages (store.ts judgingNow) and says so; the
 * offset and the uncertainty are in GET /metrics.
 */
import type { NodeClock } from "../seams.js";
import { wallClock } from "../wall-clock.js";
import type { Db } from "./db.js";

const MEASURE_EVERY_MS = 5_000;
/** The most a node's reading may be off before the sweep stops judging ages (ms). */
const MAX_UNCERTAINTY_MS = 1_000;
/** How fast a monotonic clock may drift from the database's (1 ms a second: generous). */
const DRIFT = 0.001;
/** An offset from the database's clock worth telling the operator about (ms). */
const TELL_OFFSET_MS = 1_000;

interface Reading {
  /** The database's clock (ms since the epoch) at `at`. */
  db: number;
  /** performance.now() when the database read its clock (the middle of the round trip). */
  at: number;
  /** Half the round trip (ms). */
  half: number;
}

export class DbClock implements NodeClock {
  private reading: Reading | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  private closed = false;
  private told = false;

  constructor(
    private readonly db: Db,
    private readonly log: (m: string) => void,
  ) {}

  /** The first reading (a node serves after it), then one every MEASURE_EVERY_MS. */
  async start(): Promise<void> {
    await this.measure();
    const next = (): void => {
      this.timer = setTimeout(() => void this.measure().then(() => !this.closed && next()), MEASURE_EVERY_MS);
      this.timer.unref();
    };
    next();
  }

  now(): number {
    const wall = wallClock();
    const db = this.dbNow();
    // Within what a reading can tell apart, this node's clock agrees with the database's: its
    // own is used then (a round trip's jitter would otherwise stamp arrivals ahead of it).
    return db === undefined || Math.abs(wall - db) <= this.uncertaintyMs() ? wall : db;
  }

  /** The database's clock now as the last reading tells it, if any. */
  private dbNow(): number | undefined {
    const r = this.reading;
    return r === undefined ? undefined : Math.round(r.db + (performance.now() - r.at));
  }

  /** How far off now() may be (ms); Infinity before any reading. */
  uncertaintyMs(): number {
    const r = this.reading;
    return r === undefined ? Number.POSITIVE_INFINITY : r.half + DRIFT * (performance.now() - r.at);
  }

  /** This node's wall clock's offset from the database's (ms; positive: ahead). */
  offsetMs(): number {
    return wallClock() - (this.dbNow() ?? wallClock());
  }

  unsure(): string | undefined {
    const u = this.uncertaintyMs();
    if (u <= MAX_UNCERTAINTY_MS) return undefined;
    const by = u === Number.POSITIVE_INFINITY ? "an unknown amount" : `up to ${Math.round(u)} ms`;
    return `this node's reading of the database's clock may be off by ${by}, more than the ${MAX_UNCERTAINTY_MS} ms allowed`;
  }

  private async measure(): Promise<void> {
    const sent = performance.now();
    try {
      const rows = await this.db.read<{ ms: number }>(
        "SELECT (extract(epoch FROM pg_catalog.clock_timestamp()) * 1000)::float8 AS ms",
      );
      const half = (performance.now() - sent) / 2;
      const reading = { db: Number(rows[0]!.ms), at: sent + half, half };
      if (half <= this.uncertaintyMs()) this.reading = reading;
      if (this.failing) this.log("this node reads the database's clock again");
      this.failing = false;
      const off = this.offsetMs();
      if (!this.told && Math.abs(off) >= TELL_OFFSET_MS) {
        this.told = true;
        this.log(
          `this node's clock is ${Math.abs(off)} ms ${off > 0 ? "ahead of" : "behind"} the database's: arrivals are stamped and ages judged by the database's clock`,
        );
      }
    } catch (e) {
      if (!this.failing) this.log(`cannot read the database's clock: ${(e as Error).message}`);
      this.failing = true;
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
