/**
 * Groups parsed records into append batches (docs/design/cli.md, "Appending"): a batch is sent when it
 * reaches `maxRecords` or the next record would push it past `maxBytes` (metered), or
 * `lingerMs` after its first record arrived, or when the input ends (that batch is marked
 * `last`). Aborting stops pulling from the input at once; records already received still form
 * a last batch.
 */

import { MAX_TIMER_MS } from "../../types.js";
import type { Parsed } from "./input-records.js";

export interface BatchLimits {
  lingerMs: number;
  maxRecords: number;
  maxBytes: number;
}

export interface Batch {
  records: Parsed[];
  bytes: number;
  /** The input had ended (or was abandoned) when this batch was made: no batch follows. */
  last?: boolean;
}

const TIMER = Symbol("timer");
const ABORT = Symbol("abort");

export async function* batches(
  source: AsyncIterator<Parsed[]>,
  limits: BatchLimits,
  signal: AbortSignal,
): AsyncGenerator<Batch> {
  let cur: Parsed[] = [];
  let bytes = 0;
  let deadline = 0;
  let pending: Promise<IteratorResult<Parsed[]>> | undefined;
  const take = (): Batch => {
    const b = { records: cur, bytes };
    cur = [];
    bytes = 0;
    return b;
  };
  for (;;) {
    pending ??= source.next();
    // Fresh promises per round: racing a long-lived one would pin every round's result.
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<typeof ABORT>((resolve) => {
      onAbort = () => resolve(ABORT);
      if (signal.aborted) resolve(ABORT);
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    const racers: Promise<IteratorResult<Parsed[]> | typeof TIMER | typeof ABORT>[] = [pending, aborted];
    if (cur.length > 0 && Number.isFinite(limits.lingerMs)) {
      racers.push(
        new Promise((resolve) => {
          timer = setTimeout(() => resolve(TIMER), Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now())));
        }),
      );
    }
    let r: IteratorResult<Parsed[]> | typeof TIMER | typeof ABORT;
    try {
      r = await Promise.race(racers);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort!);
    }
    if (r === TIMER) {
      yield take();
      continue;
    }
    if (r === ABORT) {
      pending.catch(() => undefined); // the input is abandoned; its fate no longer matters
      break;
    }
    pending = undefined;
    if (r.done) break;
    for (const p of r.value) {
      if (cur.length > 0 && (cur.length >= limits.maxRecords || bytes + p.size > limits.maxBytes)) yield take();
      if (cur.length === 0) deadline = Date.now() + limits.lingerMs;
      cur.push(p);
      bytes += p.size;
    }
    if (cur.length >= limits.maxRecords) yield take();
  }
  if (cur.length > 0) yield { ...take(), last: true };
}
