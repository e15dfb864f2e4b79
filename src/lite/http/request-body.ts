/**
 * Reading a request body whole: every request that has a body except an append session, whose
 * body streams for as long as the session lives (http/exchange.ts `body()`).
 *
 * Bounds, so that a client cannot hold a connection (a file descriptor) by trickling:
 * - size: at most `limit` bytes (16 MiB for unary bodies), else 413;
 * - time: the body must keep arriving at `bytesPerSecond` on average, counted from `graceMs`
 *   after the request head arrived: by then + n / rate, n + 1 bytes must be in. By default
 *   10 s (SVC_LITE_BODY_GRACE_MS), then 8 KiB/s (a 1 MiB batch may take 138 s; the largest body 2,058 s). A body that
 *   falls behind is answered 408 `request_timeout` and its connection closed. The server has no
 *   other request timeout (`requestTimeout: 0`): append sessions stream for hours and long-poll
 *   reads wait with no body at all, and neither is read here.
 */
import { SvcError, serverError } from "../../errors.js";

export interface BodyPace {
  /** How long a body may take before its bytes must keep up with the rate. */
  graceMs: number;
  bytesPerSecond: number;
}

/** The pace a body must keep after its grace (the grace is a setting of lite: option-table.ts). */
export const BODY_BYTES_PER_SECOND = 8 * 1024;

/** Why a body was not read whole: its connection can carry no other request. */
export class BodyRefused extends SvcError {}

const LATE = Symbol("late");

/**
 * All of `source`'s chunks, at most `limit` bytes, each arriving within the pace counted from
 * `headAt` (a `performance.now()` time). Throws BodyRefused for a body too large or too slow,
 * client_hangup when the client went away mid-body.
 */
export async function readWhole(
  source: AsyncIterable<Buffer>,
  limit: number,
  pace: BodyPace,
  headAt: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const it = source[Symbol.asyncIterator]();
  for (;;) {
    const dueIn = headAt + pace.graceMs + (size / pace.bytesPerSecond) * 1000 - performance.now();
    let next: IteratorResult<Buffer> | typeof LATE;
    try {
      next = await nextWithin(it, dueIn);
    } catch {
      // The client reset the stream or closed the connection mid-body (a premature close):
      // its mistake or its choice, not a server error, and there is nobody to answer.
      throw serverError("client_hangup", "the client went away while sending the request body");
    }
    if (next === LATE) throw tooSlow(size, pace);
    if (next.done) break;
    size += next.value.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(next.value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/** The next chunk, or LATE when none came within `ms` (the chunk still pending is let go). */
function nextWithin(it: AsyncIterator<Buffer>, ms: number): Promise<IteratorResult<Buffer> | typeof LATE> {
  const next = it.next();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), Math.max(0, ms));
  });
  next.catch(() => undefined); // settles after the answer when LATE won: nobody waits for it
  return Promise.race([next, late]).finally(() => clearTimeout(timer));
}

export function tooLarge(limit: number): BodyRefused {
  return new BodyRefused({
    code: "invalid",
    status: 413,
    origin: "server",
    retryable: false,
    sideEffects: false,
    message: `request body exceeds ${limit} bytes`,
  });
}

function tooSlow(received: number, pace: BodyPace): BodyRefused {
  return new BodyRefused({
    code: "request_timeout",
    status: 408,
    origin: "server",
    retryable: true,
    sideEffects: false,
    message: `the request body arrived too slowly (${received} bytes; after ${pace.graceMs / 1000} s a body must keep arriving at ${pace.bytesPerSecond / 1024} KiB/s)`,
  });
}
