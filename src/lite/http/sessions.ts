/**
 * Streaming forms of B7 and B8 (protocol.md §6, §6.9): append sessions and read sessions over
 * `svc/proto` frames, and SSE reads. Everything that can fail before the 200 (validation, 404,
 * 409, 416) fails as an ordinary JSON response; after the 200, errors are terminal frames or
 * SSE `error` events. The server's shutdown signal is the sessions' drain signal.
 *
 * Auth: a session outlives its token's checks at the start, so its principal is checked
 * again at every message: each append input, each read batch, and every second while a read
 * waits. A revoked or expired token ends the session with a terminal 401 `authn` (SSE: an
 * `error` event); nothing after that point is applied or delivered.
 */
import type { ReadParams } from "../store/read-engine.js";
import { ReadCursor } from "../store/read-engine.js";
import type { Chain, LiveStream, Submitted } from "../store/live-stream.js";
import type { AppendInput } from "../../types.js";
import { negotiateCompression } from "../../wire/compression.js";
import { runAppendSession, type AppendPort } from "../session/append-session.js";
import { runReadSession } from "../session/read-session.js";
import { parseLastEventId, runSseSession } from "../session/sse.js";
import { drainOf, sessionIO } from "../session/io.js";
import type { FeedEvent, ReadFeed } from "../session/feed-pump.js";
import type { RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { contentType } from "./media.js";
import { requestFormat } from "./params.js";
import { admitNew, streamCrypto } from "./encryption.js";

const STREAM_HEADERS = { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };

export async function appendSession(ex: Exchange, ctx: RequestContext, basin: string, stream: string): Promise<void> {
  const state = await ctx.store.stream(basin, stream, "append", admitNew(ex));
  const crypto = await streamCrypto(ex, state);
  if (!ex.startStream(200, { "content-type": contentType(ex), ...STREAM_HEADERS })) return;
  // The session's appends form one chain: after one is refused, none after it is applied.
  const chain: Chain = { failed: false };
  const refuse = (e: unknown): Submitted => {
    chain.failed = true;
    return { accepted: false, ack: state.whenIdle().then(() => { throw e; }) };
  };
  const submit = (input: AppendInput): Submitted => {
    try {
      ctx.auth.authorizeCommands(ctx.principal, input, { basin, stream });
    } catch (e) {
      return refuse(e);
    }
    return state.submit(crypto.seal(input), chain);
  };
  const port: AppendPort = {
    submit(input) {
      let checked;
      try {
        checked = ctx.auth.recheck(ctx.principal);
      } catch (e) {
        return refuse(e);
      }
      return checked instanceof Promise ? checked.then(() => submit(input), refuse) : submit(input);
    },
  };
  ctx.metrics?.stats.session("append", 1);
  try {
    await runAppendSession(sessionIO(ex.req, ex.res), port, {
      compression: negotiateCompression(ex.req.headers["accept-encoding"]),
      drain: drainOf(ctx.shutdown),
      budget: ctx.appendBudget,
    });
  } finally {
    ctx.metrics?.stats.session("append", -1);
  }
}

/** `kind` is "proto" for svc/proto frames, "sse" for text/event-stream. */
export async function readSession(ex: Exchange, ctx: RequestContext, basin: string, stream: string, params: ReadParams, kind: "proto" | "sse"): Promise<void> {
  const format = kind === "sse" ? requestFormat(ex) : "raw";
  const resume = kind === "sse" ? ex.header("last-event-id") : undefined;
  const last = resume !== undefined ? parseLastEventId(resume) : undefined;
  if (last) {
    // §6.9: resume after the last delivered record with the limits reduced, saturating at 0.
    params.start = { seqNum: last.seqNum + 1 };
    if (params.count !== undefined) params.count = Math.max(0, params.count - last.count);
    if (params.bytes !== undefined) params.bytes = Math.max(0, params.bytes - last.bytes);
  }
  const state = await ctx.store.stream(basin, stream, "read", admitNew(ex));
  const open = (await streamCrypto(ex, state)).open;
  const cursor = await ReadCursor.open(state, params, false, open); // 416 happens here, before the 200
  const feed = guardedFeed(cursorFeed(cursor, state), () => ctx.auth.recheck(ctx.principal));
  const type = kind === "sse" ? "text/event-stream" : contentType(ex);
  if (!ex.startStream(200, { "content-type": type, ...STREAM_HEADERS })) return feed.close();
  const io = sessionIO(ex.req, ex.res);
  const drain = drainOf(ctx.shutdown);
  const gauge = kind === "sse" ? "sse" : "read";
  ctx.metrics?.stats.session(gauge, 1);
  try {
    if (kind === "sse") {
      await runSseSession(io, feed, { drain, format, startCount: last?.count, startBytes: last?.bytes });
    } else {
      await runReadSession(io, feed, { drain, compression: negotiateCompression(ex.req.headers["accept-encoding"]) });
    }
  } finally {
    ctx.metrics?.stats.session(gauge, -1);
  }
}

/** How often a waiting read (a session, or a unary long-poll) re-checks its token. */
export const RECHECK_MS = 1000;

/**
 * A feed that checks `guard` before every event and every RECHECK_MS while it waits; once
 * the guard throws, the feed fails with that error (a terminal frame or SSE error event).
 */
function guardedFeed(feed: ReadFeed, guard: () => unknown): ReadFeed {
  let failure: unknown;
  let wake: (() => void) | undefined;
  const failed = new Promise<never>((_, reject) => { wake = () => reject(failure); });
  failed.catch(() => undefined);
  const timer = setInterval(() => {
    Promise.resolve().then(guard).catch((e: unknown) => { failure ??= e; clearInterval(timer); wake?.(); });
  }, RECHECK_MS);
  timer.unref();
  return {
    events: {
      next: async () => {
        if (failure === undefined) try { await guard(); } catch (e) { failure = e; }
        if (failure !== undefined) throw failure;
        return Promise.race([feed.events.next(), failed]);
      },
    },
    tail: () => feed.tail(),
    close() {
      clearInterval(timer);
      feed.close();
    },
  };
}

/**
 * The read cursor as a pull-based feed. `wait` (§7.5) is an idle budget armed when the
 * session first follows the tail and reset by every delivered live batch; `wait=0` with no
 * limits reads to the tail and stops, without a heartbeat.
 */
function cursorFeed(cursor: ReadCursor, state: LiveStream): ReadFeed {
  const abort = new AbortController();
  let idleSince: number | undefined;
  const deadline = (): number | undefined =>
    cursor.waitMs === undefined || idleSince === undefined ? undefined : idleSince + cursor.waitMs;
  const next = async (): Promise<IteratorResult<FeedEvent>> => {
    if (abort.signal.aborted) return { done: true, value: undefined };
    const step = await cursor.next(deadline(), abort.signal);
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
    tail: () => state.tailNow(),
    close() {
      abort.abort();
      cursor.close();
    },
  };
}
