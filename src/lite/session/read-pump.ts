/**
 * Drives a read for a session (protocol.md §6.6, §6.9, §7.5), framed or SSE alike:
 * - catch-up batches are pulled one at a time, each only after the last was written (a slow
 *   reader holds back its read instead of filling memory);
 * - at the tail the read follows: the stream's fan-out writes each live batch to the session
 *   itself (store/read-feed.ts `follow`), with no work per batch here; a session whose connection
 *   fills leaves the live path, waits for it to drain, and catches up from storage;
 * - while it waits, a heartbeat goes out at a random 5–15 s interval whenever no records arrive
 *   (one timer per session, re-armed only when it fires); the first of each following phase
 *   comes at once, from the read itself;
 * - a heartbeat's tail is never above what this session has written (protocol.md §6.6): the
 *   stream's tail may be ahead of it (another node's records this node has not yet delivered,
 *   a batch durable but not yet through the fan-out), and a client resuming at an announced
 *   tail would skip what lies between. A periodic heartbeat announces the tail now, or where the
 *   session stands when that is lower; the drain notice announces where it stands.
 */
import type { ReadBatch, ReadEvent, StreamPosition } from "../../types.js";
import type { EitherKind } from "../storage/answers.js";
import type { FollowEnd, LiveSink } from "../store/read-feed.js";
import type { Drain, SessionIO } from "./io.js";
import { STOP, Stopper } from "./stopper.js";

/** What a session reads from (store/read-feed.ts ReadFeed). */
export interface ReadSource {
  next(): Promise<ReadEvent | undefined>;
  follow(sink: LiveSink): Promise<FollowEnd>;
  /** The stream's tail now, for heartbeats (it may ask the database). */
  tail(): EitherKind<StreamPosition>;
  /** After the last record handed out (the last batch `next()` returned, or the last live one), with its timestamp. */
  readonly taken: StreamPosition | undefined;
  /** When the last live batch was delivered (ms epoch; 0: none). */
  readonly lastLiveAt: number;
  close(): void;
}

/** A session's wire: how it writes a batch, a heartbeat, and live batches. */
interface SessionSink {
  batch(batch: ReadBatch): Promise<void>;
  /** A heartbeat; without a tail when the session has no position to announce yet. */
  heartbeat(tail: StreamPosition | undefined): Promise<void>;
  readonly live: LiveSink;
}

export interface PumpOptions {
  drain: Drain;
  /** Heartbeat spacing bounds in ms (default 5–15 s). */
  heartbeatMinMs?: number;
  heartbeatMaxMs?: number;
  /** After draining starts: ms to let the client reconnect before the server ends the session. */
  drainGraceMs?: number;
  /** Told of the failure a session ends with, before its terminal frame or event (for the log). */
  onError?: (e: unknown) => void;
}

type PumpResult = "done" | "draining" | "closed";

/** Pumps the read into the sink until it ends ("done"), the server drains, or the client leaves. */
export async function pumpRead(
  feed: ReadSource,
  io: SessionIO,
  sink: SessionSink,
  opts: PumpOptions,
): Promise<PumpResult> {
  const stopper = new Stopper();
  let result: PumpResult = "closed";
  const stop = (r: PumpResult): void => {
    if (!stopper.stopped) {
      result = r;
      stopper.stop();
    }
  };
  /** Where the session stands: after the last record written to the wire (or the last heartbeat's tail). */
  let sent: StreamPosition | undefined;
  const advance = (to: StreamPosition | undefined): void => {
    if (to && (sent === undefined || to.seqNum > sent.seqNum)) sent = to;
  };
  const heartbeat = (): void =>
    void Promise.resolve()
      .then(() => feed.tail())
      .then((t) => sink.heartbeat(sent === undefined || t.seqNum > sent.seqNum ? sent : t))
      .catch(() => undefined); // a stream gone meanwhile ends the read itself
  const live: LiveSink = {
    shape: sink.live.shape,
    deliver(b) {
      const room = sink.live.deliver(b);
      advance(b.tail);
      return room;
    },
  };
  const offClose = io.onClose(() => stop("closed"));
  const offDrain = opts.drain.onDrain(() => {
    // Tell the client now (the frame carries the reconnect flag), then end after a grace period.
    void sink.heartbeat(sent).catch(() => undefined);
    setTimeout(() => stop("draining"), opts.drainGraceMs ?? 1_000).unref();
  });
  const beats = new Heartbeats(feed, heartbeat, opts.heartbeatMinMs ?? 5_000, opts.heartbeatMaxMs ?? 15_000);
  try {
    for (;;) {
      const ev = await stopper.race(feed.next());
      if (ev === STOP) return result;
      if (!ev) return "done";
      if (ev.type === "batch") {
        await sink.batch(ev);
        advance(feed.taken);
        continue;
      }
      await sink.heartbeat(ev.tail!);
      advance(ev.tail);
      beats.start();
      const end = await stopper.race(feed.follow(live));
      beats.stop();
      if (end === STOP) return result;
      if (end === "done" || end === "idle") return "done";
      if (end === "full" && (await stopper.race(io.drained())) === STOP) return result;
    }
  } finally {
    beats.stop();
    offClose();
    offDrain();
    feed.close();
  }
}

/**
 * Heartbeats while a read follows: at a random interval whenever nothing was sent for that long.
 * The timer is not reset by live batches (that would cost every delivery a timer): when it fires
 * early it waits out the rest.
 */
class Heartbeats {
  private timer: NodeJS.Timeout | undefined;
  private lastBeat = 0;
  private interval = 0;

  constructor(
    private readonly feed: ReadSource,
    private readonly send: () => void,
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  start(): void {
    this.lastBeat = Date.now();
    this.interval = this.pick();
    this.arm(this.interval);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pick(): number {
    return this.minMs + Math.random() * (this.maxMs - this.minMs);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(1, ms));
  }

  private fire(): void {
    const now = Date.now();
    const quietSince = Math.max(this.lastBeat, this.feed.lastLiveAt);
    if (now - quietSince < this.interval) return this.arm(quietSince + this.interval - now);
    this.send();
    this.lastBeat = now;
    this.interval = this.pick();
    this.arm(this.interval);
  }
}
