/**
 * Where a read starts (protocol.md §7.2, §7.3): a seq num, a timestamp or a tail offset, and
 * the 416 rules, which depend on the tail now. A seq num below the tail known on this node
 * holds records whatever else was appended, so it is taken without asking for the tail.
 */
import { RangeNotSatisfiableError, serverError } from "../../errors.js";
import type { ReadStart } from "../../types.js";
import type { LiveStream } from "./live-stream.js";

/** What a read asks for (protocol.md §7.2-§7.5). */
export interface ReadParams {
  start?: ReadStart;
  clamp?: boolean;
  count?: number;
  bytes?: number;
  until?: number;
  /** Seconds. */
  wait?: number;
}

/**
 * The position a read starts at, and the tail now when it had to be asked (-1 when not).
 * Throws 416 with the tail now; `canFollow`: a read that may wait at the tail is no 416 there.
 */
export async function resolveStart(
  stream: LiveStream,
  p: { start?: ReadStart; clamp?: boolean },
  canFollow: boolean,
): Promise<{ position: number; confirmed: number }> {
  const start = p.start ?? { tailOffset: 0 };
  if ("seqNum" in start && start.seqNum < stream.known.nextSeq) return { position: start.seqNum, confirmed: -1 };
  const tail = await stream.tailNow();
  const n = tail.seqNum;
  let pos: number;
  if ("seqNum" in start) {
    if (start.seqNum > n && !p.clamp) throw new RangeNotSatisfiableError(tail);
    pos = Math.min(start.seqNum, n);
  } else if ("timestamp" in start) {
    if (start.timestamp > tail.timestamp) {
      if (!p.clamp) throw new RangeNotSatisfiableError(tail);
      pos = n;
    } else {
      // A timestamp start that lands on the tail because records were trimmed is no 416.
      return { position: await seekTimestamp(stream, start.timestamp, n), confirmed: n };
    }
  } else {
    pos = Math.max(0, n - ("tailOffset" in start ? start.tailOffset : 0));
  }
  if (pos === n && !canFollow) throw new RangeNotSatisfiableError(tail);
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

/** §7.2 rule 4 and §8: checks that need no stream, so a bad request never auto-creates one. */
export function validateReadParams(p: { start?: ReadStart; until?: number }): void {
  if (p.start && "timestamp" in p.start && p.until !== undefined && p.until <= p.start.timestamp) {
    throw serverError("invalid", "start `timestamp` exceeds or equal to `until`");
  }
}
