/**
 * What a read may still deliver (protocol.md §7.4): its position, the records and metered bytes
 * left of `count` and `bytes`, and `until`. One read (read-feed.ts) holds one budget, which takes
 * stored records into a catch-up batch one at a time (`takeRun`) or a live batch whole
 * (`takesWhole`, `tookLive`), and counts every stored record it hands out in the stream's
 * metrics (live batches are counted once per fan-out round: live-fanout.ts `countLive`).
 */

import { MAX_READ_RECORD_BYTES, meteredSize, readSizeBound } from "../../rules/records.js";
import { LIMITS, type SequencedRecord } from "../../types.js";
import type { StreamMeter } from "../metrics/meter.js";
import type { StoredBatch } from "../storage/types.js";
import type { CatchUpBatch } from "./catch-up.js";
import type { LiveBatch } from "./live-fanout.js";
import type { ReadPlan } from "./read-plan.js";

export class ReadBudget {
  position = 0;
  /** After the last record taken (-1: none yet), and that record's timestamp. */
  takenEnd = -1;
  takenTimestamp = 0;
  /** A limit is met, or `until` was reached: nothing more is delivered. */
  ended: boolean;
  private remainingCount: number;
  private remainingBytes: number;
  private readonly until: number | undefined;

  /**
   * @param meter the stream's counters (read again each time: the store sets them once loaded)
   * @param open the reader's view of a stored record (decryption, §8.8), if it needs one
   */
  constructor(
    plan: ReadPlan,
    private readonly meter: () => StreamMeter,
    private readonly open: ((r: SequencedRecord) => SequencedRecord) | undefined,
  ) {
    this.remainingCount = plan.count;
    this.remainingBytes = plan.bytes;
    this.until = plan.until;
    this.ended = plan.count === 0 || plan.bytes === 0;
  }

  /** How much a catch-up batch holding `out` may still take (how many stored batches to read at once). */
  room(out: CatchUpBatch): { records: number; bytes: number } {
    return {
      records: Math.min(LIMITS.maxBatchRecords - out.count, this.remainingCount),
      bytes: Math.min(LIMITS.maxBatchBytes - out.bytes, this.remainingBytes),
    };
  }

  /** Whether live batch `b`, at the position, may be delivered whole (else it is read from storage). */
  takesWhole(b: LiveBatch): boolean {
    const until = this.until;
    return (
      this.open === undefined &&
      b.records.length <= this.remainingCount &&
      b.metered <= this.remainingBytes &&
      (until === undefined || b.lastTimestamp < until)
    );
  }

  /** Counts live batch `b` as delivered; true when that met a limit. */
  tookLive(b: LiveBatch): boolean {
    const n = b.records.length;
    this.position = this.takenEnd = b.end;
    this.takenTimestamp = b.lastTimestamp;
    this.remainingCount -= n;
    this.remainingBytes -= b.metered;
    // The stream's read metrics count live deliveries per round (live-fanout.ts), not here.
    if (this.remainingCount === 0 || this.remainingBytes === 0) this.ended = true;
    return this.ended;
  }

  /**
   * Takes records of stored batch `b` from the position up to seq `to` into `out`: runs of its
   * wire bytes when it has them (and needs no decryption), else decoded records. True when `out`
   * is full or the read ended inside `b`.
   */
  takeRun(b: StoredBatch, to: number, out: CatchUpBatch): boolean {
    const from = this.position - b.firstSeq;
    const end = to - b.firstSeq;
    const wire = this.open ? undefined : b.wire;
    if (wire) {
      let i = from;
      let full = false;
      for (; i < end && !full; i++) {
        const size = wire.metered(i);
        const encoded = wire.encoded(i);
        if (this.admit(b.firstSeq + i, wire.timestamp(i), size, out, encoded) !== "ok") break;
        out.add(size, encoded);
        full = this.ended || out.count >= LIMITS.maxBatchRecords;
      }
      if (i > from) out.pieces.push(wire.slice(from, i));
      return i < end || full;
    }
    for (let i = from; i < end; i++) {
      const r = this.open ? this.open(b.records[i]!) : b.records[i]!;
      const size = meteredSize(r);
      const encoded = readSizeBound(r, size); // a bound: exact sizes cost an encode pass per record
      if (this.admit(r.seqNum, r.timestamp, size, out, encoded) !== "ok") return true;
      out.pieces.push(r);
      out.add(size, encoded);
      if (this.ended || out.count >= LIMITS.maxBatchRecords) return true;
    }
    return false;
  }

  /** Gives back what `out` took (limits, metrics), as when a restart drops it. */
  giveBack(out: CatchUpBatch): void {
    this.remainingCount += out.count;
    this.remainingBytes += out.bytes;
    const m = this.meter();
    m.readRecords -= out.count;
    m.readBytes -= out.bytes;
  }

  /**
   * Decides whether a record may be delivered and accounts for it (§7.4): `until` and a record
   * that would exceed `bytes` end the read; a full batch (1 MiB metered, 1000 records, or as many
   * encoded bytes as one session frame holds) only closes the batch.
   */
  private admit(
    seqNum: number,
    timestamp: number,
    size: number,
    out: CatchUpBatch,
    encoded: number,
  ): "ok" | "stop" | "full" {
    if ((this.until !== undefined && timestamp >= this.until) || size > this.remainingBytes) {
      this.ended = true;
      return "stop";
    }
    if (
      out.count > 0 &&
      (out.bytes + size > LIMITS.maxBatchBytes ||
        out.count >= LIMITS.maxBatchRecords ||
        out.encoded + encoded > MAX_READ_RECORD_BYTES)
    )
      return "full";
    this.position = this.takenEnd = seqNum + 1;
    this.takenTimestamp = timestamp;
    const m = this.meter();
    m.readRecords++;
    m.readBytes += size;
    this.remainingBytes -= size;
    this.remainingCount -= 1;
    if (this.remainingCount === 0 || this.remainingBytes === 0) this.ended = true;
    return "ok";
  }
}
