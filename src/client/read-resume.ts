/**
 * The one resume loop of reads that survive disconnects (protocol.md §6.6, §6.7, §6.9;
 * docs/design/reliability.md, "Read resume"), for every wire form: framed protobuf
 * (read-session.ts), SSE (sse-read.ts) and unary reads (unary-read.ts). An attempt opens one
 * exchange and yields its events:
 * - any batch without records is a heartbeat; `heartbeatTimeoutMs` (default 20 s) without any
 *   message means the connection is dead;
 * - after a disconnect, a retryable error or reconnect advice, the read is reopened at the
 *   next sequence number (last record + 1; before any record, the first heartbeat's tail: a
 *   heartbeat never moves the position past a record not received, see takeBatch) with `count` and
 *   `bytes` reduced by what was delivered and `wait` by the idle time already spent, so no
 *   record is delivered twice or skipped;
 * - failures without progress are retried `retries` times with transport/retry.ts back-off,
 *   except in a follow read (no count, bytes, until or wait; or `follow: true`) that has
 *   connected once: like `tail -F`, it keeps reconnecting while the server is away, with
 *   back-off capped at 1 s (plus jitter), and reports the outage once through `onOutage`;
 * - the read ends when the server ends it cleanly, or with the first non-retryable error.
 */
import { clientError, RangeNotSatisfiableError, SvcError } from "../errors.js";
import { meteredBatchSize } from "../rules/records.js";
import { sleep } from "../sleep.js";
import { backoffDelay } from "../transport/retry.js";
import { MAX_TIMER_MS, type ReadBatch, type ReadEvent, type ReadLimits, type ReadStart } from "../types.js";
import { encodeReadQuery } from "../wire/read-query.js";

export interface ReadSessionOptions {
  start?: ReadStart;
  limits?: ReadLimits;
  /** Silence after which the connection is treated as dead. @default 20000 */
  heartbeatTimeoutMs?: number;
  /** Reconnects after failures without progress before giving up. @default 2 */
  retries?: number;
  /** Keep reconnecting while the server is away once connected. @default true for a read with no count, bytes, until or wait */
  follow?: boolean;
  onReconnect?: (reason: string) => void;
  /** A follow read lost the server and keeps trying; called once per outage. */
  onOutage?: (reason: SvcError) => void;
  /** The server is back after an outage; reading resumes at `nextSeq`. */
  onRecovered?: (nextSeq: number | undefined) => void;
  signal?: AbortSignal;
}

/** Where the read stands; a resumed attempt starts from here. */
export interface Progress {
  nextSeq: number | undefined;
  count: number;
  bytes: number;
  /** When the session last delivered records, or first started following. */
  idleSince: number | undefined;
}

interface AttemptHooks {
  /** The exchange is open (the server answered 200). */
  opened(): void;
  /** Records arrived: the failure count starts over. */
  progressed(): void;
}

/** One exchange's events; "done" on a clean end, "reconnect" on the server's advice. */
type ReadAttempt = (p: Progress, hooks: AttemptHooks) => AsyncGenerator<ReadEvent, "done" | "reconnect">;

/**
 * THE rule of what a read may still deliver: its count and bytes limits lowered by what it
 * delivered, never below 0; a limit it did not set stays unset. Every way of reading on (a
 * resumed session, the next unary request, a salvage read) asks it.
 */
export function limitsLeft(
  limits: Pick<ReadLimits, "count" | "bytes">,
  delivered: { count: number; bytes: number },
): { count?: number; bytes?: number } {
  return {
    ...(limits.count !== undefined ? { count: Math.max(0, limits.count - delivered.count) } : {}),
    ...(limits.bytes !== undefined ? { bytes: Math.max(0, limits.bytes - delivered.bytes) } : {}),
  };
}

/** The query string for a (re)started read: after what was delivered, with the limits lowered by it. Exported for tests. */
export function readQuery(start: ReadStart, limits: ReadLimits, p: Progress, now = Date.now()): string {
  const spent = p.idleSince === undefined ? 0 : Math.floor((now - p.idleSince) / 1000);
  return encodeReadQuery({
    start: p.nextSeq !== undefined ? { seqNum: p.nextSeq } : start,
    ...limitsLeft(limits, p),
    ...(limits.until !== undefined ? { until: limits.until } : {}),
    ...(limits.wait !== undefined ? { wait: Math.max(0, limits.wait - spent) } : {}),
    ...(limits.clamp ? { clamp: true } : {}),
  });
}

/** A read with no limit that would end it: it follows the stream forever. */
export function isFollowRead(limits: ReadLimits): boolean {
  return (
    limits.count === undefined && limits.bytes === undefined && limits.until === undefined && limits.wait === undefined
  );
}

/**
 * Counts a batch into the progress and turns it into an event; a repeated record is a protocol
 * error. A heartbeat's tail fixes where a resumed read starts only while the read has no
 * position yet (no record arrived): it pins the start, so that a start by tail offset,
 * timestamp or clamp is not judged again on a resume. Once the read has a position, a
 * heartbeat never moves it: a tail above the last record received may be records this session
 * has not delivered (protocol.md §6.6), and resuming there would skip them.
 */
export function takeBatch(p: Progress, batch: ReadBatch): ReadEvent {
  const tail = batch.tail;
  if (batch.records.length === 0) {
    if (tail && p.nextSeq === undefined) p.nextSeq = tail.seqNum;
    p.idleSince ??= Date.now();
    return tail ? { type: "heartbeat", tail } : { type: "heartbeat" };
  }
  const first = batch.records[0]!;
  if (p.nextSeq !== undefined && first.seqNum < p.nextSeq)
    throw clientError("protocol", `the server repeated record ${first.seqNum}`);
  p.nextSeq = batch.records[batch.records.length - 1]!.seqNum + 1;
  p.count += batch.records.length;
  p.bytes += meteredBatchSize(batch.records);
  p.idleSince = tail ? Date.now() : undefined;
  return tail ? { type: "batch", records: batch.records, tail } : { type: "batch", records: batch.records };
}

/** The one resume loop around attempts (see the header). */
export async function* resumingRead(attempt: ReadAttempt, opts: ReadSessionOptions): AsyncGenerator<ReadEvent> {
  const limits = opts.limits ?? {};
  const retries = opts.retries ?? 2;
  const follow = opts.follow ?? isFollowRead(limits);
  const p: Progress = { nextSeq: undefined, count: 0, bytes: 0, idleSince: undefined };
  let failures = 0;
  let resumed = false;
  let connected = false;
  let away = false;
  const hooks: AttemptHooks = {
    opened: () => {
      connected = true;
      if (away) {
        away = false;
        opts.onRecovered?.(p.nextSeq);
      }
    },
    progressed: () => {
      failures = 0;
    },
  };

  for (;;) {
    if (opts.signal?.aborted) return;
    if (
      (limits.count !== undefined && p.count >= limits.count) ||
      (limits.bytes !== undefined && p.bytes >= limits.bytes)
    )
      return;
    let reason: SvcError;
    try {
      if ((yield* attempt(p, hooks)) === "done") return;
      reason = clientError("network", "the server advised reconnecting");
    } catch (e) {
      if (opts.signal?.aborted) return;
      reason = e instanceof SvcError ? e : clientError("network", String(e), e);
      if (reason instanceof RangeNotSatisfiableError && resumed) {
        // Resuming a bounded read exactly at the tail: the server already said all it had.
        if (!follow && reason.tail.seqNum === p.nextSeq) return;
        // Behind what this read already received: not an end, the stream is not what it was.
        if (p.nextSeq !== undefined && reason.tail.seqNum < p.nextSeq) throw behindTail(reason, p.nextSeq);
      }
      if (!reason.retryable || reason.status === 416) throw reason;
    }
    failures++;
    const persistent = follow && connected;
    if (!persistent && failures > retries) throw reason;
    if (persistent && !away && failures > 1) {
      away = true;
      opts.onOutage?.(reason);
    }
    resumed = true;
    opts.onReconnect?.(reason.message);
    // A first cut or the server's advice reconnects at once; then back-off, capped at 1 s base.
    await sleep(
      failures === 1 && reason.retryAfterMs === undefined
        ? 0
        : backoffDelay(failures - 2, undefined, reason.retryAfterMs),
      opts.signal,
    );
  }
}

/** A resumed read found the stream's tail below records it had already received. */
function behindTail(e: RangeNotSatisfiableError, nextSeq: number): SvcError {
  return new SvcError({
    code: e.code,
    status: 416,
    origin: "server",
    retryable: false,
    sideEffects: false,
    cause: e,
    message: `the stream's tail is now ${e.tail.seqNum}, below record ${nextSeq - 1} this read already received: was the stream deleted and created again?`,
  });
}

/** Wraps a source: `messages` re-arms the watchdog per message, `chunks` checks it per byte chunk. */
interface Watch {
  messages<M>(source: AsyncIterable<M>): AsyncGenerator<M>;
  chunks(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array>;
}

/**
 * Runs `body` over one exchange under a silence watchdog: each message re-arms it; silence
 * abandons the connection and fails the attempt. Bytes that make no message (an endless
 * line, comments) are not a sign of life: the deadline is also checked at every chunk, as a
 * timer cannot fire while chunks already received are being worked through. The exchange is
 * closed however it ends.
 */
export async function* watched<T>(
  exchange: { close(): void; abandon(): void },
  silenceMs: number,
  signal: AbortSignal | undefined,
  body: (watch: Watch) => AsyncGenerator<ReadEvent, T>,
): AsyncGenerator<ReadEvent, T> {
  let silent = false;
  let timer: NodeJS.Timeout | undefined;
  let deadline = 0;
  const arm = (): void => {
    clearTimeout(timer);
    deadline = Date.now() + silenceMs;
    timer = setTimeout(
      () => {
        silent = true;
        exchange.abandon();
      },
      Math.min(MAX_TIMER_MS, silenceMs),
    );
    timer.unref();
  };
  const watch: Watch = {
    async *messages(source) {
      for await (const m of source) {
        arm();
        yield m;
      }
    },
    async *chunks(source) {
      for await (const c of source) {
        if (Date.now() > deadline) {
          silent = true;
          exchange.abandon();
          throw silence();
        }
        yield c;
      }
    },
  };
  const onAbort = (): void => exchange.close();
  signal?.addEventListener("abort", onAbort);
  if (signal?.aborted) onAbort(); // aborted while the exchange was opening: no event will come
  const silence = (): SvcError => clientError("network", `no message from the server for ${silenceMs / 1000} s`);
  try {
    arm();
    const outcome = yield* body(watch);
    if (silent) throw silence();
    return outcome;
  } catch (e) {
    if (silent && !signal?.aborted) throw silence();
    throw e;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    exchange.close();
  }
}
