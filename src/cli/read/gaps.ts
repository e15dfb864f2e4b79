/**
 * Records a read was to deliver but that were gone when it got there: a stream's sequence
 * numbers have no holes (fence and trim records take theirs too), so when a read that knows
 * where it stands (a checkpoint, `-s N`, the record after the last one printed) is handed a
 * later record, the ones between were trimmed or expired first. Such a skip is never silent:
 * a warning on stderr names the records, or, with `--fail-on-gap`, the read stops before the
 * batch and exits 5. Its checkpoint keeps the position before the gap, so that no run skips
 * the loss unasked: each rerun stops there again, and the error's hint names the command that
 * moves on (the checkpoint set past the gap, or a rerun without `--fail-on-gap`).
 */
import { clientError } from "../../errors.js";
import { seqRange } from "../../format/seq-range.js";
import type { SequencedRecord } from "../../types.js";
import { withHint } from "../failure.js";
import { shellWord } from "../flags/conditions.js";

interface Gap {
  /** The first missing sequence number. */
  from: number;
  /** The first record there was. */
  next: number;
}

export class SeqContinuity {
  /** `expected`: the sequence number the next record should have, when the read knows it. */
  constructor(private expected: number | undefined) {}

  /** The gaps before and inside `records`; afterwards, the next record is expected after the last. */
  check(records: readonly SequencedRecord[]): Gap[] {
    const gaps: Gap[] = [];
    for (const r of records) {
      if (this.expected !== undefined && r.seqNum > this.expected) gaps.push({ from: this.expected, next: r.seqNum });
      this.expected = r.seqNum + 1;
    }
    return gaps;
  }
}

/** "records 3..7 of svc://b/s were trimmed or expired before they were read" */
export function gapText(gap: Gap, uri: string): string {
  const one = gap.next - gap.from === 1;
  return `${one ? "record" : "records"} ${seqRange(gap.from, gap.next - 1)} of ${uri} ${one ? "was" : "were"} trimmed or expired before ${one ? "it was" : "they were"} read`;
}

/**
 * `--fail-on-gap`: the error (exit 5) for the first gap, with a hint naming how to go on past
 * it. `several`: a tail of several streams, whose checkpoint is a JSON object of positions.
 */
export function gapError(gap: Gap, uri: string, checkpoint: string | undefined, several = false): Error {
  const kept = checkpoint !== undefined ? `; ${checkpoint} stays at ${gap.from}` : "";
  const e = clientError("records_missing", `${gapText(gap, uri)} (--fail-on-gap: stopped there${kept})`);
  const lost = seqRange(gap.from, gap.next - 1);
  let hint: string;
  if (checkpoint === undefined)
    hint = `the records from ${gap.next} on are there: \`svc read ${uri} -s ${gap.next}\` reads on from ${gap.next}`;
  else if (several)
    hint = `${checkpoint} keeps ${uri} before the gap, so each run stops here: to accept the loss, run the command once without --fail-on-gap (it warns of each gap, goes on past it and moves ${checkpoint} on)`;
  else
    hint = `the checkpoint stays before the gap, so each run stops here: to skip ${lost} and go on from ${gap.next}, set it past them (\`echo ${gap.next} > ${shellWord(checkpoint)}\`), then run the command again`;
  return withHint(e, hint);
}

/** Without `--fail-on-gap`: a warning per gap, and the read goes on. */
export function warnGaps(gaps: Gap[], uri: string, warn: (msg: string) => void): void {
  for (const gap of gaps) warn(`${gapText(gap, uri)}; continuing at ${gap.next}`);
}
