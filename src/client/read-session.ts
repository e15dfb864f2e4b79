/**
 * A read session that survives disconnects (protocol.md §6.6, §6.7; reliability.md §2.f).
 *
 * - Any batch without records is a heartbeat; about 20 s without any frame means the
 *   connection is dead.
 * - After a disconnect, a retryable terminal error, or reconnect advice, the session is
 *   reopened at the next sequence number (last record + 1, or the last heartbeat's tail),
 *   with `count` and `bytes` reduced by what was delivered and `wait` by the idle time already
 *   spent, so no record is delivered twice or skipped.
 * - The session ends when the server ends it cleanly (a limit, `until` or `wait` was reached),
 *   or with the first non-retryable error.
 */
import { SvcError, clientError } from "../errors.js";
import type { ReadLimits, ReadStart, SequencedRecord, StreamPosition } from "../types.js";
import { decodeReadBatch } from "../wire/proto.js";
import { meteredBatchSize } from "../wire/batch.js";
import type { OpenExchange } from "./append-session.js";
import { responseError, serverMessages } from "./session-frames.js";
import { backoffDelay, sleep } from "./backoff.js";

export type ReadEvent =
  | { type: "batch"; records: SequencedRecord[]; tail?: StreamPosition }
  | { type: "heartbeat"; tail?: StreamPosition };

export interface ReadSessionOptions {
  start?: ReadStart;
  limits?: ReadLimits;
  /** Silence after which the connection is treated as dead (default 20 s). */
  heartbeatTimeoutMs?: number;
  /** Consecutive failed attempts, without progress, before giving up (default 10). */
  maxAttempts?: number;
  onReconnect?: (reason: string) => void;
  signal?: AbortSignal;
}

interface Progress {
  nextSeq: number | undefined;
  count: number;
  bytes: number;
  /** When the session last delivered records, or first started following. */
  idleSince: number | undefined;
}

/** The query string for a (re)started read. Exported for tests. */
export function readQuery(start: ReadStart, limits: ReadLimits, p: Progress, now = Date.now()): string {
  const q = new URLSearchParams();
  if (p.nextSeq !== undefined) q.set("seq_num", String(p.nextSeq));
  else if ("seqNum" in start) q.set("seq_num", String(start.seqNum));
  else if ("timestamp" in start) q.set("timestamp", String(start.timestamp));
  else if ("tailOffset" in start) q.set("tail_offset", String(start.tailOffset));
  if (limits.count !== undefined) q.set("count", String(Math.max(0, limits.count - p.count)));
  if (limits.bytes !== undefined) q.set("bytes", String(Math.max(0, limits.bytes - p.bytes)));
  if (limits.until !== undefined) q.set("until", String(limits.until));
  if (limits.clamp) q.set("clamp", "true");
  if (limits.wait !== undefined) {
    const spent = p.idleSince === undefined ? 0 : Math.floor((now - p.idleSince) / 1000);
    q.set("wait", String(Math.max(0, limits.wait - spent)));
  }
  return q.toString();
}

export async function* readSession(open: OpenExchange, opts: ReadSessionOptions = {}): AsyncGenerator<ReadEvent> {
  const start = opts.start ?? {};
  const limits = opts.limits ?? {};
  const silenceMs = opts.heartbeatTimeoutMs ?? 20_000;
  const maxAttempts = opts.maxAttempts ?? 10;
  const p: Progress = { nextSeq: undefined, count: 0, bytes: 0, idleSince: undefined };
  let failures = 0;
  let resumed = false;

  for (;;) {
    if (opts.signal?.aborted) return;
    if ((limits.count !== undefined && p.count >= limits.count) || (limits.bytes !== undefined && p.bytes >= limits.bytes)) return;
    let reason: SvcError;
    try {
      const exchange = await open({ method: "GET", query: readQuery(start, limits, p), duplex: false });
      if (exchange.status !== 200) {
        const err = await responseError(exchange);
        // Resuming exactly at the tail of a bounded read: the server already said all it had.
        if (err.status === 416 && resumed) return;
        throw err;
      }
      const outcome = yield* follow(exchange, p, silenceMs, opts.signal, () => { failures = 0; });
      if (outcome === "done") return;
      reason = clientError("network", "the server advised reconnecting");
    } catch (e) {
      reason = e instanceof SvcError ? e : clientError("network", String(e), e);
      if (!reason.retryable || reason.status === 416) throw reason;
    }
    if (++failures > maxAttempts) throw reason;
    resumed = true;
    opts.onReconnect?.(reason.message);
    await sleep(reason.code === "network" && failures === 1 ? 0 : backoffDelay(failures - 1, reason.retryAfterMs));
  }
}

/** Streams one exchange; returns "done" on a clean end, "reconnect" on advice. */
async function* follow(
  exchange: Awaited<ReturnType<OpenExchange>>, p: Progress, silenceMs: number,
  signal: AbortSignal | undefined, progressed: () => void,
): AsyncGenerator<ReadEvent, "done" | "reconnect"> {
  let silent = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => { silent = true; exchange.abandon(); }, silenceMs);
    timer.unref();
  };
  const onAbort = (): void => exchange.close();
  signal?.addEventListener("abort", onAbort);
  try {
    arm();
    for await (const msg of serverMessages(exchange)) {
      arm();
      if (msg.kind === "terminal") throw msg.error;
      const batch = decodeReadBatch(msg.payload);
      if (batch.records.length === 0) {
        if (batch.tail) p.nextSeq = Math.max(p.nextSeq ?? 0, batch.tail.seqNum);
        p.idleSince ??= Date.now();
        yield batch.tail ? { type: "heartbeat", tail: batch.tail } : { type: "heartbeat" };
      } else {
        const last = batch.records[batch.records.length - 1]!;
        if (p.nextSeq !== undefined && batch.records[0]!.seqNum < p.nextSeq) {
          throw clientError("protocol", `the server repeated record ${batch.records[0]!.seqNum}`);
        }
        p.nextSeq = last.seqNum + 1;
        p.count += batch.records.length;
        p.bytes += meteredBatchSize(batch.records);
        p.idleSince = batch.tail ? Date.now() : undefined;
        progressed();
        yield batch.tail ? { type: "batch", records: batch.records, tail: batch.tail } : { type: "batch", records: batch.records };
      }
      if (msg.reconnect) {
        exchange.close();
        return "reconnect";
      }
    }
    if (silent) throw clientError("network", `no message from the server for ${silenceMs / 1000} s`);
    return "done";
  } catch (e) {
    if (signal?.aborted) return "done";
    if (silent) throw clientError("network", `no message from the server for ${silenceMs / 1000} s`);
    throw e;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    exchange.close();
  }
}
