/**
 * Drives a read feed for a session (protocol.md §6.6, §7.5, §6.9): takes the feed's events
 * one at a time (the next is pulled only after the previous one was written, so a slow reader
 * holds back the feed instead of filling memory), and while following the tail inserts a
 * heartbeat at a random 5–15 s interval whenever no records arrive. The first heartbeat of
 * each following phase comes from the feed itself (`following`), at once.
 */
import type { ReadBatch, StreamPosition } from "../../types.js";
import type { Drain, SessionIO } from "./io.js";
import { STOP, Stopper } from "./stopper.js";

export type FeedEvent =
  | { kind: "batch"; batch: ReadBatch }
  /** The reader reached the tail and now follows it. */
  | { kind: "following"; tail: StreamPosition };

export interface ReadFeed {
  /** Ends when the read ends cleanly; throws an SvcError when it fails. */
  events: AsyncIterator<FeedEvent>;
  /** The stream's tail now, for heartbeats (it may have to ask the database). */
  tail(): StreamPosition | Promise<StreamPosition>;
  /** Stops the feed (the client went away, or the server drains). */
  close(): void;
}

export interface FeedSink {
  batch(batch: ReadBatch): Promise<void>;
  heartbeat(tail: StreamPosition): Promise<void>;
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

export type PumpResult = "done" | "draining" | "closed";

/** Pumps events into the sink until the feed ends ("done"), the server drains, or the client leaves. */
export async function pumpFeed(feed: ReadFeed, io: SessionIO, sink: FeedSink, opts: PumpOptions): Promise<PumpResult> {
  const min = opts.heartbeatMinMs ?? 5_000;
  const max = opts.heartbeatMaxMs ?? 15_000;
  // Races go through Stoppers whose listeners are removed as each race settles (a loop racing
  // a long-lived promise would keep every delivered batch reachable).
  const stopper = new Stopper();
  let result: PumpResult = "closed";
  const stop = (r: PumpResult): void => {
    if (!stopper.stopped) {
      result = r;
      stopper.stop();
    }
  };
  const offClose = io.onClose(() => stop("closed"));
  const offDrain = opts.drain.onDrain(() => {
    // Tell the client now (the frame carries the reconnect flag), then end after a grace period.
    void Promise.resolve(feed.tail())
      .then((t) => sink.heartbeat(t))
      .catch(() => undefined);
    setTimeout(() => stop("draining"), opts.drainGraceMs ?? 1_000).unref();
  });
  let following = false;
  let timer: NodeJS.Timeout | undefined;
  let next: Promise<IteratorResult<FeedEvent>> | undefined;
  try {
    next = feed.events.next();
    for (;;) {
      // The heartbeat timer is its own stopper: it fires, or the next event wins and clears it.
      const tick = new Stopper();
      if (following) {
        clearTimeout(timer);
        timer = setTimeout(() => tick.stop(), min + Math.random() * (max - min));
      }
      const raced = await stopper.race(tick.race(next));
      clearTimeout(timer);
      if (raced === STOP) {
        if (stopper.stopped) return result;
        await sink.heartbeat(await feed.tail());
        continue;
      }
      if (raced.done) return "done";
      const ev = raced.value;
      if (ev.kind === "following") {
        following = true;
        await sink.heartbeat(ev.tail);
      } else {
        await sink.batch(ev.batch);
      }
      next = feed.events.next();
    }
  } finally {
    clearTimeout(timer);
    offClose();
    offDrain();
    feed.close();
    next?.catch(() => undefined); // a pending pull may fail once the feed is closed
  }
}
