/**
 * A read as lite serves it (protocol.md §7): the request's ReadParams judged once into a plan
 * (the unary caps, the `wait` defaults, whether it may follow the tail), and where it starts
 * (§7.2, §7.3: a seq num, a timestamp or a tail offset, and the 416 rules, which depend on the
 * tail now). A seq num below the tail known on this node holds records whatever else was
 * appended, so it is taken without asking for the tail.
 */

import { RangeNotSatisfiableError, serverError } from "../../errors.js";
import { LIMITS, type ReadParams, type ReadStart } from "../../types.js";
import type { LiveStream } from "./live-stream.js";
import { wentBack } from "./went-back.js";

export interface ReadPlan {
  start: ReadStart | undefined;
  clamp: boolean;
  /** Records and metered bytes the whole read may deliver (Infinity: unbounded). */
  count: number;
  bytes: number;
  until: number | undefined;
  /** The idle bound in ms (§7.5); undefined: none. */
  waitMs: number | undefined;
  /** Whether the read may wait at the tail (§7.3): else it ends there. */
  canFollow: boolean;
}

/** §7.2 rule 4, the unary caps (§7.4) and the `wait` defaults (§7.5): a bad read fails before any stream is touched. */
export function planRead(p: ReadParams, unary: boolean): ReadPlan {
  if (p.start && "timestamp" in p.start && p.until !== undefined && p.until <= p.start.timestamp) {
    throw serverError("invalid", "start `timestamp` exceeds or equal to `until`");
  }
  const base = { start: p.start, clamp: p.clamp ?? false, until: p.until };
  if (unary) {
    const waitMs = Math.min(p.wait ?? 0, LIMITS.maxUnaryWaitSecs) * 1000;
    return {
      ...base,
      count: Math.min(p.count ?? LIMITS.maxUnaryReadRecords, LIMITS.maxUnaryReadRecords),
      bytes: Math.min(p.bytes ?? LIMITS.maxUnaryReadBytes, LIMITS.maxUnaryReadBytes),
      waitMs,
      canFollow: waitMs > 0,
    };
  }
  const bounded = p.count !== undefined || p.bytes !== undefined || p.until !== undefined;
  const wait = p.wait ?? (bounded ? 0 : undefined);
  return {
    ...base,
    count: p.count ?? Infinity,
    bytes: p.bytes ?? Infinity,
    waitMs: wait === undefined ? undefined : wait * 1000,
    canFollow: !bounded || (wait ?? 0) > 0,
  };
}

/**
 * §6.9: an SSE read resumed with `Last-Event-ID`: after the last delivered record, with the
 * limits lowered by what was delivered (saturating at 0; an unbounded one stays so). Whether
 * it may follow the tail, and how long it waits there, are the request's, as planned.
 */
export function resumedAfter(plan: ReadPlan, last: { seqNum: number; count: number; bytes: number }): ReadPlan {
  return {
    ...plan,
    start: { seqNum: last.seqNum + 1 },
    count: Math.max(0, plan.count - last.count),
    bytes: Math.max(0, plan.bytes - last.bytes),
  };
}

/**
 * The position a read starts at, and the tail now when it had to be asked (-1 when not).
 * Throws 416 with the tail now; a read that may wait at the tail is no 416 there.
 */
export async function resolveStart(
  stream: LiveStream,
  plan: Pick<ReadPlan, "start" | "clamp" | "canFollow">,
): Promise<{ position: number; confirmed: number }> {
  const start = plan.start ?? { tailOffset: 0 };
  if ("seqNum" in start && start.seqNum < stream.known.nextSeq) return { position: start.seqNum, confirmed: -1 };
  const tail = await stream.tailNow();
  const n = tail.seqNum;
  // A position the database no longer holds (a failover lost it): clamping it or waiting there
  // would splice the new primary's records onto what the reader was given.
  const lost = stream.lost;
  if ("seqNum" in start && lost && start.seqNum > n && start.seqNum <= lost.from) throw wentBack(lost.from, n);
  let pos: number;
  if ("seqNum" in start) {
    if (start.seqNum > n && !plan.clamp) throw new RangeNotSatisfiableError(tail);
    pos = Math.min(start.seqNum, n);
  } else if ("timestamp" in start) {
    if (start.timestamp > tail.timestamp) {
      if (!plan.clamp) throw new RangeNotSatisfiableError(tail);
      pos = n;
    } else {
      // A timestamp start that lands on the tail because records were trimmed is no 416.
      return { position: await seekTimestamp(stream, start.timestamp, n), confirmed: n };
    }
  } else {
    pos = Math.max(0, n - ("tailOffset" in start ? start.tailOffset : 0));
  }
  if (pos === n && !plan.canFollow) throw new RangeNotSatisfiableError(tail);
  return { position: pos, confirmed: n };
}

/** The first record at or after timestamp `t` below `n`, else `n`. */
async function seekTimestamp(stream: LiveStream, t: number, n: number): Promise<number> {
  const first = await stream.findTimestamp(t);
  if (first === undefined || first >= n) return n;
  for (const b of await stream.readBatches(first, 2)) {
    for (const r of b.records) if (r.timestamp >= t && r.seqNum < n) return r.seqNum;
  }
  return n;
}
