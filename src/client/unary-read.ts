/**
 * A read as a loop of unary reads (protocol.md §6.4: at most 1000 records or 1 MiB each),
 * under the same resume loop as sessions (read-resume.ts): each request starts at the next
 * sequence number (last record + 1; before any, the first empty response's tail) with `count` and
 * `bytes` reduced by what was delivered, so nothing is repeated or skipped. A read that
 * follows long-polls 60 s at a time and yields each empty response as a heartbeat; one that
 * does not ends at its first empty response, and a 416 once records arrived is its end too.
 * The caller's retry policy already retries each request (reads are idempotent), so a failure
 * here ends the read, except in a follow read that has connected once: it waits for the
 * server like a session does.
 */
import { RangeNotSatisfiableError } from "../errors.js";
import { LIMITS, type ReadBatch, type ReadEvent, type ReadLimits, type ReadStart } from "../types.js";
import {
  isFollowRead,
  limitsLeft,
  type Progress,
  type ReadSessionOptions,
  resumingRead,
  takeBatch,
} from "./read-resume.js";

/** One unary read request. */
export type ReadOnce = (start: ReadStart, limits: ReadLimits) => Promise<ReadBatch>;

/** How long one request of a follow read waits at the tail, in seconds. */
const LONG_POLL_SECS = 60;

export function unaryRead(get: ReadOnce, opts: ReadSessionOptions = {}): AsyncGenerator<ReadEvent> {
  const start = opts.start ?? {};
  const limits = opts.limits ?? {};
  const follow = opts.follow ?? isFollowRead(limits);
  return resumingRead(
    async function* (p, hooks) {
      for (;;) {
        const limitsNow = remaining(limits, p, follow);
        if (limitsNow === undefined || opts.signal?.aborted) return "done";
        let batch: ReadBatch;
        try {
          batch = await get(p.nextSeq === undefined ? start : { seqNum: p.nextSeq }, limitsNow);
        } catch (e) {
          if (e instanceof RangeNotSatisfiableError && p.count > 0) return "done";
          if (opts.signal?.aborted) return "done"; // the long-poll was cut by the read's own abort
          throw e;
        }
        hooks.opened();
        if (batch.records.length === 0 && (!follow || limits.until !== undefined || limits.bytes !== undefined))
          return "done";
        const ev = takeBatch(p, batch);
        if (ev.type === "batch") hooks.progressed();
        yield ev;
      }
    },
    { ...opts, retries: 0 },
  );
}

/** The next request's limits, or undefined once the read's own count or bytes are met. */
function remaining(limits: ReadLimits, p: Progress, follow: boolean): ReadLimits | undefined {
  const { count, bytes } = limitsLeft(limits, p);
  if (count === 0 || bytes === 0) return undefined;
  const out: ReadLimits = {};
  if (count !== undefined) out.count = Math.min(count, LIMITS.maxUnaryReadRecords);
  if (bytes !== undefined) out.bytes = bytes;
  if (limits.until !== undefined) out.until = limits.until;
  // Past the first record the start is an exact sequence number: clamping has nothing to do.
  if (limits.clamp && p.count === 0) out.clamp = true;
  const wait = follow ? LONG_POLL_SECS : limits.wait;
  if (wait !== undefined) out.wait = wait;
  return out;
}
