/**
 * THE read pipeline of lite (protocol.md §7): unary reads, read sessions and SSE all read through
 * a ReadFeed. The feed knows limits and following, nothing of storage kinds or of the wire: what is
 * stored comes through the stream's StoredReader (stored-reader.ts, trims and gaps resolved), what
 * is appended while the read waits at the tail through the stream's fan-out (live-fanout.ts).
 *
 *   next()    one catch-up batch of stored records (no `tail`), a heartbeat when the read has
 *             reached the tail and may wait there (follow next; its tail is where the read
 *             stands, never a record it has not delivered), or undefined at its end;
 *   follow()  at the tail: each live batch goes straight to the sink, the same bytes as every
 *             other follower's, until the read must read storage again (it fell behind, or a
 *             batch it cannot take whole), its connection is full, its limits are met, or its
 *             `wait` ran out (§7.5).
 *
 * A feed holds one stop signal for its life: `close()`, or the abort of `signal` (a revoked
 * token's 401), which ends it at once, even while it follows.
 */

import type { SvcError } from "../../errors.js";
import {
  MAX_TIMER_MS,
  type ReadBatch,
  type ReadEvent,
  type SequencedRecord,
  type StreamPosition,
} from "../../types.js";
import type { EitherKind } from "../storage/answers.js";
import { CatchUpBatch } from "./catch-up.js";
import type { LiveBatch, LiveSubscriber } from "./live-fanout.js";
import type { LiveStream } from "./live-stream.js";
import { ReadBudget } from "./read-budget.js";
import { type ReadPlan, resolveStart } from "./read-plan.js";
import type { StoredReader } from "./stored-reader.js";

interface FeedOptions {
  /** The reader's view of a stored record (decryption, §8.8; may throw `decryption_failed`). */
  open?: (r: SequencedRecord) => SequencedRecord;
  /** Checked before every catch-up event (the token): a promise, or throws. */
  check?: () => EitherKind<void>;
  /** Whether `check` would pass, answered at once without I/O; false sends the read back to `next` first. */
  checkNow?: () => boolean;
  /** Aborted with a reason: the read fails with it, at once. */
  signal?: AbortSignal;
  /** Told once, when the read is closed. */
  onClose?: () => void;
}

/** Where live batches go while a feed follows: a session's wire, or a long-poll's answer. */
export interface LiveSink {
  /** The wire shape this reader reads (the fan-out makes it once per batch). */
  readonly shape?: LiveSubscriber["shape"];
  /** Writes `b` (every record of it is this reader's) at once: false when nothing more should be written now. */
  deliver(b: LiveBatch): boolean;
}

/**
 * Why following ended: `storage` (read on with next()), `full` (the sink took a batch and has no
 * room: wait for it, then next()), `done` (the read's limits are met), `idle` (its `wait` ran
 * out), `stopped` (closed).
 */
export type FollowEnd = "storage" | "full" | "done" | "idle" | "stopped";

export class ReadFeed {
  private readonly budget: ReadBudget;
  private stopped: { reason: unknown } | undefined;
  /** Since when the read waits without a live batch (§7.5: armed when it first follows). */
  private idleSince: number | undefined;
  /** When the last live batch was delivered (ms epoch; 0: none). */
  lastLiveAt = 0;
  private reader!: StoredReader;
  private following: Following | undefined;
  private readonly onAbort = (): void => this.stop({ reason: this.opts.signal!.reason });

  /** A read of `plan` (read-plan.ts: the request judged once); resolves the start: 416 here, before any answer. */
  static async open(stream: LiveStream, plan: ReadPlan, opts: FeedOptions = {}): Promise<ReadFeed> {
    const feed = new ReadFeed(stream, plan, opts);
    const start = await resolveStart(stream, feed.plan);
    feed.budget.position = start.position;
    feed.reader = stream.reader(start.confirmed);
    feed.listen();
    return feed;
  }

  private constructor(
    private readonly stream: LiveStream,
    readonly plan: ReadPlan,
    private readonly opts: FeedOptions,
  ) {
    this.budget = new ReadBudget(plan, () => stream.meter, opts.open);
  }

  /** Where the read goes on. */
  get position(): number {
    return this.budget.position;
  }

  /**
   * The position after the last record this read handed out (in the last batch `next()` returned,
   * or the last live batch), with that record's timestamp; undefined before any.
   */
  get taken(): StreamPosition | undefined {
    const b = this.budget;
    return b.takenEnd < 0 ? undefined : { seqNum: b.takenEnd, timestamp: b.takenTimestamp };
  }

  private listen(): void {
    const signal = this.opts.signal;
    if (signal?.aborted) this.onAbort();
    else signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The stream's tail now (it may ask the database); a heartbeat announces it only up to `taken`. */
  tail() {
    return this.stream.tailNow();
  }

  async next(): Promise<ReadEvent | undefined> {
    this.failIfStopped();
    if (this.budget.ended || this.stopped) return undefined;
    await this.opts.check?.();
    for (;;) {
      const batch = await this.catchUp();
      this.failIfStopped();
      if (this.stopped) return undefined;
      if (batch) {
        this.stream.meter.readOps++;
        // Not `{ type, ...batch }`: a spread reads every property, and a batch of stored wire bytes
        // decodes its records when `records` is read (catch-up.ts), which a session never needs.
        return Object.assign(batch, { type: "batch" as const });
      }
      // §7.5: wait=0 with no limits reads to the tail and stops there, without a heartbeat.
      if (this.budget.ended || !this.plan.canFollow || this.plan.waitMs === 0) {
        this.budget.ended = true;
        return undefined;
      }
      // The heartbeat's tail is never above what this read delivered (protocol.md §6.6): records
      // this node learnt of while the read caught up (another node's) are read first.
      const known = this.stream.known;
      if (known.nextSeq > this.position) continue;
      this.idleSince ??= Date.now();
      return { type: "heartbeat", tail: { seqNum: known.nextSeq, timestamp: known.lastTimestamp } };
    }
  }

  /** Waits at the tail, live batches to `sink`, until the read must do something else (FollowEnd). */
  follow(sink: LiveSink): Promise<FollowEnd> {
    this.failIfStopped();
    if (this.budget.ended) return Promise.resolve("done");
    if (this.following) throw new Error("a feed follows once at a time");
    return new Promise<FollowEnd>((resolve, reject) => {
      const f = new Following(this, sink, resolve, reject);
      try {
        if (!this.stream.follow(f)) return resolve("storage"); // behind what was published: storage first
      } catch (e) {
        return reject(e);
      }
      this.following = f;
      this.armIdle();
    });
  }

  /** Stops the read (the client went away, the server drains, the answer is complete). */
  close(): void {
    this.opts.signal?.removeEventListener("abort", this.onAbort);
    if (!this.stopped) this.stop(undefined);
    this.opts.onClose?.();
  }

  /** A live batch offered by the fan-out: taken whole and written, or the read leaves the live path. */
  take(b: LiveBatch, sink: LiveSink): boolean {
    if (!this.budget.takesWhole(b) || !(this.opts.checkNow?.() ?? true) || !shapedFor(b, sink))
      return this.endFollow("storage");
    const met = this.budget.tookLive(b);
    this.idleSince = this.lastLiveAt = b.at;
    b.deliveries++;
    const room = sink.deliver(b);
    if (met) return this.endFollow("done");
    return room || this.endFollow("full");
  }

  /** Ends following (if it still does) with `end`: false, as the fan-out's answer. */
  endFollow(end: FollowEnd | { error: unknown }): false {
    const f = this.following;
    if (!f) return false;
    this.following = undefined;
    this.stream.unfollow(f);
    f.settle(end);
    return false;
  }

  /** §7.5: the read ends once `wait` passed since the last live batch (a timer per follower, re-armed only when it fires). */
  private armIdle(): void {
    const waitMs = this.plan.waitMs;
    const f = this.following;
    if (waitMs === undefined || !f) return;
    const left = this.idleSince! + waitMs - Date.now();
    if (left > 0) {
      f.timer = setTimeout(() => this.armIdle(), Math.min(left, MAX_TIMER_MS));
      return;
    }
    this.budget.ended = true;
    this.endFollow("idle");
  }

  private stop(s: { reason: unknown } | undefined): void {
    this.stopped = s ?? { reason: undefined };
    this.endFollow(s ? { error: s.reason } : "stopped");
  }

  private failIfStopped(): void {
    if (this.stopped?.reason !== undefined) throw this.stopped.reason;
  }

  /**
   * One catch-up batch from storage, bounded by the tail now; undefined when caught up. Stored
   * records that carry their wire bytes (and need no decryption) are taken by their index and
   * sent as runs of those bytes; the rest as decoded records.
   */
  private async catchUp(): Promise<ReadBatch | undefined> {
    const budget = this.budget;
    let out = new CatchUpBatch();
    while (!budget.ended && this.stopped === undefined) {
      const step = await this.reader.next(budget.position, budget.room(out));
      if (step.kind === "end") {
        budget.position = Math.max(budget.position, step.at);
        break;
      }
      if (step.kind === "restart") {
        if (out.count > 0) {
          budget.giveBack(out);
          out = new CatchUpBatch();
        }
        budget.position = step.from;
        continue;
      }
      budget.position = step.from;
      if (budget.takeRun(step.batch, step.to, out)) break;
    }
    return out.finish();
  }
}

/**
 * Whether `b` has the sink's shape, made now if it can be at once (the fan-out makes shapes before
 * offering; a batch made afterwards, or a shape asked for later, has none yet).
 */
function shapedFor(b: LiveBatch, sink: LiveSink): boolean {
  const shape = sink.shape;
  if (!shape || b.shaped(shape.key)) return true;
  const made = shape.make(b);
  if (made instanceof Promise) {
    made.catch(() => undefined);
    return false;
  }
  b.setShape(shape.key, made);
  return true;
}

/** A feed following the tail, as the stream's fan-out sees it. */
class Following implements LiveSubscriber {
  timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly feed: ReadFeed,
    private readonly sink: LiveSink,
    private readonly resolve: (end: FollowEnd) => void,
    private readonly reject: (e: unknown) => void,
  ) {}

  get position(): number {
    return this.feed.position;
  }

  get shape() {
    return this.sink.shape;
  }

  offer(b: LiveBatch): boolean {
    return this.feed.take(b, this.sink);
  }

  evicted(why: "lagged" | SvcError): void {
    this.feed.endFollow(why === "lagged" ? "storage" : { error: why });
  }

  settle(end: FollowEnd | { error: unknown }): void {
    clearTimeout(this.timer);
    if (typeof end === "object") this.reject(end.error);
    else this.resolve(end);
  }
}
