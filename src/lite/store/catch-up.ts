/**
 * A catch-up batch as a read gathers it (read-feed.ts): runs of stored records as the
 * bytes a read sends, or decoded records where they must be (decryption, old values), and how
 * many stored batches to read at a time.
 */

import { meteredBatchSize } from "../../rules/records.js";
import type { ReadBatch, SequencedRecord } from "../../types.js";
import { decodeReadBatchBytes } from "../../wire/record-decode.js";
import { type StoredBatch, storedCount } from "../storage/types.js";

/**
 * How many stored batches like `last` the rest of an output batch (`records`, `bytes` metered)
 * may take: 1 to 64, so a stream of big batches reads one at a time and one of tiny batches
 * few times.
 */
export function storedBatchesToRead(last: StoredBatch, records: number, bytes: number): number {
  const count = storedCount(last);
  const size = last.wire ? last.wire.slice(0, count).length : meteredBatchSize(last.records);
  const byCount = Math.ceil(records / Math.max(1, count));
  const bySize = Math.ceil(bytes / Math.max(1, size));
  return Math.min(64, Math.max(1, Math.min(byCount, bySize)));
}

/**
 * A catch-up batch being gathered: runs of encoded records (Uint8Array) and decoded records,
 * in seq order. All runs: sent as they are, records decoded only if someone asks (SSE, JSON).
 */
export class CatchUpBatch {
  readonly pieces: Array<Uint8Array | SequencedRecord> = [];
  count = 0;
  bytes = 0;
  /** Bytes of the records' encoded fields (a session frame holds MAX_READ_RECORD_BYTES). */
  encoded = 0;

  /** Counts one more record (its piece is pushed by the caller). */
  add(metered: number, encoded: number): void {
    this.count++;
    this.bytes += metered;
    this.encoded += encoded;
  }

  finish(): ReadBatch | undefined {
    if (this.count === 0) return undefined;
    const pieces = this.pieces;
    if (pieces.every((p) => p instanceof Uint8Array)) return encodedBatch(pieces as Uint8Array[]);
    return { records: recordsOf(pieces) };
  }
}

/** The records of runs of encoded records and of decoded ones, in order. */
function recordsOf(pieces: ReadonlyArray<Uint8Array | SequencedRecord>): SequencedRecord[] {
  const records: SequencedRecord[] = [];
  for (const p of pieces) {
    if (p instanceof Uint8Array) for (const r of decodeReadBatchBytes(p).records) records.push(r);
    else records.push(p);
  }
  return records;
}

/** A batch of encoded records whose `records` are decoded on first use. */
function encodedBatch(encoded: Uint8Array[]): ReadBatch {
  let records: SequencedRecord[] | undefined;
  return {
    encoded,
    get records(): SequencedRecord[] {
      return (records ??= recordsOf(encoded));
    },
  };
}
