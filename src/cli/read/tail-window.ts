/**
 * The last N *data* records for `svc tail` when command records are not shown (docs/design/cli.md, "Reading"):
 * read the window [tail − N, tail); while it holds fewer than N data records and older records
 * exist, read the window before it, doubling. Then, with `-f`, follow from the tail seen at
 * the start, so nothing appended meanwhile is missed or repeated.
 */

import type { StreamClient } from "../../client/stream.js";
import { RangeNotSatisfiableError } from "../../errors.js";
import { isCommandRecord } from "../../rules/commands.js";
import type { ReadEvent, SequencedRecord } from "../../types.js";

async function readRange(
  stream: StreamClient,
  lo: number,
  hi: number,
  signal: AbortSignal,
): Promise<SequencedRecord[]> {
  const out: SequencedRecord[] = [];
  try {
    for await (const ev of stream.read({ seqNum: lo }, { count: hi - lo, wait: 0 }, { signal })) {
      if (ev.type === "batch") out.push(...ev.records.filter((r) => r.seqNum < hi));
    }
  } catch (e) {
    if (!(e instanceof RangeNotSatisfiableError)) throw e;
  }
  return out;
}

/** The records from the start of the last `n` data records up to `tail` (commands included). */
async function lastDataRecords(
  stream: StreamClient,
  n: number,
  tail: number,
  signal: AbortSignal,
): Promise<SequencedRecord[]> {
  let hi = tail;
  let lo = Math.max(0, tail - n);
  let got: SequencedRecord[] = [];
  for (;;) {
    if (lo < hi) got = [...(await readRange(stream, lo, hi, signal)), ...got];
    const data = got.filter((r) => !isCommandRecord(r)).length;
    if (data >= n || lo === 0 || signal.aborted) break;
    hi = lo;
    lo = Math.max(0, lo - Math.max(n, tail - lo));
  }
  let seen = 0;
  let from = got.length;
  while (from > 0 && seen < n) {
    from--;
    if (!isCommandRecord(got[from]!)) seen++;
  }
  return got.slice(from);
}

export async function* tailEvents(
  stream: StreamClient,
  n: number,
  follow: boolean,
  signal: AbortSignal,
): AsyncGenerator<ReadEvent> {
  const tail = (await stream.checkTail()).seqNum;
  const records = await lastDataRecords(stream, n, tail, signal);
  if (records.length > 0) yield { type: "batch", records };
  if (follow && !signal.aborted) yield* stream.read({ seqNum: tail }, {}, { signal });
}
