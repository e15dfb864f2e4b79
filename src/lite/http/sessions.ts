/**
 * Streaming forms of B7 and B8 (protocol.md §6, §6.9): append sessions and read sessions over
 * `svc/proto` frames, and SSE reads. Everything that can fail before the 200 (validation, 404,
 * 409, 416) fails as an ordinary JSON response; after the 200, errors are terminal frames or
 * SSE `error` events. The server's drain signal (ctx.drain) is the sessions'.
 *
 * Auth: a session outlives its token's checks at the start, so its principal is checked
 * again at every message (StreamAccess): each append input, each read batch, and every second
 * while a read waits. A revoked or expired token ends the session with a terminal 401 `authn`
 * (SSE: an `error` event); nothing after that point is applied or delivered.
 */

import { negotiateCompression } from "../../wire/compression.js";
import type { Principal } from "../auth/decision.js";
import { streamOf } from "../log.js";
import { runAppendSession } from "../session/append-session.js";
import { runReadSession } from "../session/read-session.js";
import { parseLastEventId, runSseSession } from "../session/sse.js";
import type { Chain } from "../store/live-stream.js";
import type { ReadPlan } from "../store/read-plan.js";
import { resumedAfter } from "../store/read-plan.js";
import { causeText, wireError } from "../wire-error.js";
import type { RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { contentType } from "./media.js";
import { requestFormat } from "./params.js";
import { StreamAccess } from "./stream-access.js";

const STREAM_HEADERS = { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };

export async function appendSession(ex: Exchange, ctx: RequestContext): Promise<void> {
  const access = await StreamAccess.open(ex, ctx, "append");
  ex.claimBody(); // the session reads its frames for as long as it lives
  if (!ex.startStream(200, { "content-type": contentType(ex), ...STREAM_HEADERS })) return;
  // The session's appends form one chain: after one is refused, none after it is applied.
  const chain: Chain = { failed: false };
  ctx.metrics?.stats.session("append", 1);
  const budget = ctx.appendLimits.open(principalKey(ctx.access.principal), ex.connection);
  try {
    await runAppendSession(
      ex,
      { submit: (input) => access.submit(input, chain) },
      {
        compression: negotiateCompression(ex.req.headers["accept-encoding"]),
        drain: ctx.drain,
        budget,
        stallMs: ctx.appendLimits.ackStallMs,
        onError: (e) =>
          logFailure(ctx, `append session on stream ${streamOf(access.stream.meta.basin, access.stream.meta.name)}`, e),
        onStall: () =>
          ctx.log(
            `append session on stream ${streamOf(access.stream.meta.basin, access.stream.meta.name)} ended: its client read no acks for ${ctx.appendLimits.ackStallMs / 1000} s`,
          ),
      },
    );
  } finally {
    budget.close();
    ctx.metrics?.stats.session("append", -1);
  }
}

/** A session's failure that is the server's (5xx) goes to the log, with its cause (a driver's text). */
function logFailure(ctx: RequestContext, what: string, e: unknown): void {
  const err = wireError(e);
  if ((err.status ?? 500) >= 500) ctx.log(`${what} → ${err.status ?? 500} ${err.code}: ${err.message}${causeText(e)}`);
}

/** Whose share of the in-flight budget a session draws from: one per bearer token; none with --no-auth. */
function principalKey(p: Principal): string | undefined {
  if (p.kind === "open") return undefined;
  return p.kind === "root" ? "root" : `token ${p.token.keyId}`;
}

/**
 * `kind` is "proto" for svc/proto frames, "sse" for text/event-stream. The session counts
 * against its token's and its connection's read sessions (session/read-limits.ts): 429 when
 * either has its fill.
 */
export async function readSession(
  ex: Exchange,
  ctx: RequestContext,
  plan: ReadPlan,
  kind: "proto" | "sse",
): Promise<void> {
  const format = kind === "sse" ? requestFormat(ex) : "raw";
  const resume = kind === "sse" ? ex.header("last-event-id") : undefined;
  const last = resume !== undefined ? parseLastEventId(resume) : undefined;
  const access = await StreamAccess.open(ex, ctx, "read");
  const release = ctx.readLimits.open(principalKey(ctx.access.principal), ex.connection);
  const gauge = kind === "sse" ? "sse" : "read";
  let counted = false;
  try {
    // §6.9: a resumed SSE read goes on after the last record delivered, its limits lowered.
    const feed = await access.feed(last ? resumedAfter(plan, last) : plan); // 416 here, before the 200
    const type = kind === "sse" ? "text/event-stream" : contentType(ex);
    if (!ex.startStream(200, { "content-type": type, ...STREAM_HEADERS })) return feed.close();
    const drain = ctx.drain;
    const what = `${kind === "sse" ? "SSE read" : "read session"} on stream ${streamOf(access.stream.meta.basin, access.stream.meta.name)}`;
    const onError = (e: unknown): void => logFailure(ctx, what, e);
    const beats = { heartbeatMinMs: Math.floor(ctx.heartbeatMs / 3), heartbeatMaxMs: ctx.heartbeatMs };
    ctx.metrics?.stats.session(gauge, 1);
    counted = true;
    if (kind === "sse") {
      await runSseSession(ex, feed, {
        drain,
        format,
        startCount: last?.count,
        startBytes: last?.bytes,
        onError,
        ...beats,
      });
    } else {
      await runReadSession(ex, feed, {
        drain,
        compression: negotiateCompression(ex.req.headers["accept-encoding"]),
        onError,
        ...beats,
      });
    }
  } finally {
    if (counted) ctx.metrics?.stats.session(gauge, -1);
    release();
  }
}
