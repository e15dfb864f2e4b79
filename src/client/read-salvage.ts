/**
 * Reading an encrypted stream whose records were written with different keys (the key travels
 * with each request, §8.8): the server fails a whole batch when one record in it cannot be
 * decrypted with the reader's key, so the records before that one would never be delivered and
 * the error would name no record. When a read fails with `decryption_failed`, this reads on from
 * where it stood with unary reads of fewer and fewer records (halving down to one), so every
 * record before the first it cannot decrypt is delivered, and then fails naming that record.
 * Every read of StreamClient.read goes through it, whatever its transport.
 */
import { RangeNotSatisfiableError, SvcError } from "../errors.js";
import { meteredBatchSize } from "../rules/records.js";
import type { ReadEvent } from "../types.js";
import { LIMITS, type ReadBatch, type ReadLimits, type ReadStart } from "../types.js";
import { limitsLeft } from "./read-resume.js";
import type { ReadOnce } from "./unary-read.js";

const isDecryptionFailure = (e: unknown): e is SvcError => e instanceof SvcError && e.code === "decryption_failed";

interface Position {
  next: number | undefined;
  count: number;
  bytes: number;
}

/** `source` as it is, unless it fails with `decryption_failed`; then the salvage above, by unary reads (`get`). */
export async function* salvageDecryptable(
  source: AsyncGenerator<ReadEvent>,
  get: ReadOnce,
  start: ReadStart,
  limits: ReadLimits,
): AsyncGenerator<ReadEvent> {
  const at: Position = { next: undefined, count: 0, bytes: 0 };
  try {
    for await (const ev of source) {
      if (ev.type === "batch") advance(at, ev);
      yield ev;
    }
    return;
  } catch (e) {
    if (!isDecryptionFailure(e)) throw e;
  }
  let k = Math.floor(LIMITS.maxUnaryReadRecords / 2);
  for (;;) {
    const next = remaining(limits, at, k);
    if (next === undefined) return;
    const from: ReadStart = at.next !== undefined ? { seqNum: at.next } : start;
    let batch: ReadBatch;
    try {
      batch = await get(from, { ...next, ...(at.next === undefined && limits.clamp ? { clamp: true } : {}) });
    } catch (e) {
      if (e instanceof RangeNotSatisfiableError) return;
      if (!isDecryptionFailure(e)) throw e;
      if (k > 1) {
        k = Math.floor(k / 2);
        continue;
      }
      throw undecryptable(at.next);
    }
    if (batch.records.length === 0) return;
    const ev: ReadEvent = { type: "batch", records: batch.records, ...(batch.tail ? { tail: batch.tail } : {}) };
    advance(at, ev);
    yield ev;
  }
}

function advance(at: Position, ev: Extract<ReadEvent, { type: "batch" }>): void {
  if (ev.records.length === 0) return;
  at.next = ev.records[ev.records.length - 1]!.seqNum + 1;
  at.count += ev.records.length;
  at.bytes += meteredBatchSize(ev.records);
}

/** The next salvage read's limits (at most `k` records, never waiting), or undefined once the read's own limits are met. */
function remaining(limits: ReadLimits, at: Position, k: number): ReadLimits | undefined {
  const left = limitsLeft(limits, at);
  const count = Math.min(k, left.count ?? k);
  const bytes = left.bytes;
  if (count <= 0 || bytes === 0) return undefined;
  return {
    count,
    wait: 0,
    ...(bytes !== undefined ? { bytes } : {}),
    ...(limits.until !== undefined ? { until: limits.until } : {}),
  };
}

function undecryptable(seqNum: number | undefined): SvcError {
  const which = seqNum === undefined ? "the first record of the read" : `record ${seqNum}`;
  return new SvcError({
    code: "decryption_failed",
    status: 400,
    origin: "server",
    retryable: false,
    sideEffects: false,
    message: `${which} cannot be decrypted with the encryption key given: it was written with another key${seqNum === undefined ? "" : " (every record before it was printed)"}`,
  });
}
