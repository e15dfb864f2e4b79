/**
 * A read cursor as the feed a session pumps (session/feed-pump.ts): one event per pull, the
 * `wait` budget of §7.5 (an idle time armed when the read first follows the tail and reset by
 * every live batch; `wait=0` with no limits reads to the tail and stops, without a heartbeat),
 * and an abort signal that ends the feed with its reason (a revoked token's 401) at once, even
 * while it waits. `check` runs before every event (the token, checked again per message).
 */
import type { StreamPosition } from "../../types.js";
import type { FeedEvent, ReadFeed } from "../session/feed-pump.js";
import type { Maybe } from "../../types.js";
import type { LiveStream } from "./live-stream.js";
import type { ReadCursor } from "./read-engine.js";

export interface FeedOptions {
  /** Aborted with a reason: the feed fails with it. */
  signal?: AbortSignal;
  check?: () => Maybe<void>;
}

export function readFeed(cursor: ReadCursor, stream: LiveStream, opts: FeedOptions = {}): ReadFeed {
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([stop.signal, opts.signal]) : stop.signal;
  let idleSince: number | undefined;
  const deadline = (): number | undefined =>
    cursor.waitMs === undefined || idleSince === undefined ? undefined : idleSince + cursor.waitMs;
  const failIfAborted = (): void => {
    if (opts.signal?.aborted) throw opts.signal.reason;
  };
  const next = async (): Promise<IteratorResult<FeedEvent>> => {
    failIfAborted();
    if (stop.signal.aborted) return { done: true, value: undefined };
    await opts.check?.();
    const step = await cursor.next(deadline(), signal);
    failIfAborted();
    switch (step.kind) {
      case "batch":
        if (step.batch.tail) idleSince = Date.now();
        return { done: false, value: { kind: "batch", batch: step.batch } };
      case "following":
        if (cursor.waitMs === 0) return { done: true, value: undefined };
        idleSince ??= Date.now();
        return { done: false, value: { kind: "following", tail: step.tail } };
      default:
        return { done: true, value: undefined };
    }
  };
  return {
    events: { next },
    tail: (): Maybe<StreamPosition> => stream.tailNow(),
    close() {
      stop.abort();
      cursor.close();
    },
  };
}
