/**
 * The read engine (protocol.md §7), shared by unary reads now and by read sessions and SSE
 * later: resolve the start (with the 416 rules of §7.3 parameterised by unary vs session),
 * catch up from storage in batches of ≤ 1000 records / ≤ 1 MiB, then follow live durable
 * appends through a bounded Follower, accounting for count, bytes, until and trims.
 *
 * The caller drives it with next(deadline): it returns a data batch (catch-up batches have
 * no `tail`, live ones do), "following" (the moment a session sends its first heartbeat),
 * "timeout" (deadline passed while following) or "end" (a limit or `until` was reached, or
 * a read that cannot follow caught up).
 *
 * Records below the stream's known tail (LiveStream.known) are served without asking who else
 * appended; where the answer depends on the tail now (the start's 416 rules, a tail offset,
 * whether a read has caught up), the stream's `tailNow` is asked, which on a shared backend
 * reflects every append acknowledged through any node.
 */
import { RangeNotSatisfiableError, serverError } from "../../errors.js";
import type { ReadBatch, SequencedRecord, StreamPosition } from "../../types.js";
import { LIMITS } from "../../types.js";
import { MAX_READ_RECORD_BYTES, meteredBatchSize, meteredSize, readSizeBound } from "../../wire/batch.js";
import { decodeReadBatchBytes } from "../../wire/record-codec.js";
import { storedCount, type StoredBatch } from "../storage/types.js";
import type { Follower } from "./follower.js";
import { retentionMs } from "./stream-config.js";
import type { LiveStream } from "./live-stream.js";

export type ReadStart = { seqNum: number } | { timestamp: number } | { tailOffset: number };

export interface ReadParams {
  start?: ReadStart;
  clamp?: boolean;
  count?: number;
  bytes?: number;
  until?: number;
  /** Seconds. */
  wait?: number;
}

export type ReadStep =
  | { kind: "batch"; batch: ReadBatch }
  | { kind: "following"; tail: StreamPosition }
  | { kind: "timeout" }
  | { kind: "end" };

/** §7.2 rule 4 and §8: checks that need no stream, so a bad request never auto-creates one. */
export function validateReadParams(p: ReadParams): void {
  if (p.start && "timestamp" in p.start && p.until !== undefined && p.until <= p.start.timestamp) {
    throw serverError("invalid", "start `timestamp` exceeds or equal to `until`");
  }
}

export class ReadCursor {
  position: number;
  /** Records and metered bytes still allowed (Infinity when unbounded). */
  remainingCount: number;
  remainingBytes: number;
  readonly until: number | undefined;
  readonly canFollow: boolean;
  /** Wait in ms: undefined = unbounded. */
  readonly waitMs: number | undefined;
  private ended = false;
  private follower: Follower | undefined;
  /**
   * The stored batch the last catch-up batch ended inside: the next one starts in it, and
   * reading it again would copy its value out of storage a second time.
   */
  private carry: StoredBatch | undefined;
  /** The position up to which `tailNow` said the stream was caught up (-1: not asked yet here). */
  private confirmed = -1;

  /**
   * Resolves the start (the 416 rules, against the tail now where they depend on it).
   * @param open the reader's view of a stored record (decryption, §8.8); it may throw
   *   `decryption_failed`. Limits count what the reader gets.
   */
  static async open(stream: LiveStream, params: ReadParams, unary: boolean, open?: (r: SequencedRecord) => SequencedRecord): Promise<ReadCursor> {
    const cursor = new ReadCursor(stream, params, unary, open);
    cursor.position = await cursor.resolveStart(params);
    return cursor;
  }

  private constructor(private readonly stream: LiveStream, params: ReadParams, unary: boolean, private readonly open?: (r: SequencedRecord) => SequencedRecord) {
    validateReadParams(params);
    const bounded = params.count !== undefined || params.bytes !== undefined || params.until !== undefined;
    if (unary) {
      // §7.4 unary caps; §7.5 unary wait defaults to 0 and is clamped to 60 s.
      this.remainingCount = Math.min(params.count ?? LIMITS.maxUnaryReadRecords, LIMITS.maxUnaryReadRecords);
      this.remainingBytes = Math.min(params.bytes ?? LIMITS.maxUnaryReadBytes, LIMITS.maxUnaryReadBytes);
      this.waitMs = Math.min(params.wait ?? 0, LIMITS.maxUnaryWaitSecs) * 1000;
      this.canFollow = this.waitMs > 0;
    } else {
      this.remainingCount = params.count ?? Infinity;
      this.remainingBytes = params.bytes ?? Infinity;
      const wait = params.wait ?? (bounded ? 0 : undefined);
      this.waitMs = wait === undefined ? undefined : wait * 1000;
      this.canFollow = !bounded || (wait ?? 0) > 0;
    }
    this.until = params.until;
    this.position = 0;
    if (this.remainingCount === 0 || this.remainingBytes === 0) this.ended = true;
  }

  /** §7.2 and §7.3. Throws 416 with the tail now. */
  private async resolveStart(p: ReadParams): Promise<number> {
    const start = p.start ?? { tailOffset: 0 };
    // A start below the known tail holds records: no need to ask for the tail now.
    if ("seqNum" in start && start.seqNum < this.stream.known.nextSeq) return start.seqNum;
    const tail = await this.stream.tailNow();
    const n = tail.seqNum;
    this.confirmed = n;
    let pos: number;
    if ("seqNum" in start) {
      if (start.seqNum > n && !p.clamp) throw new RangeNotSatisfiableError(tail);
      pos = Math.min(start.seqNum, n);
    } else if ("tailOffset" in start) {
      pos = Math.max(0, n - start.tailOffset);
    } else {
      if (start.timestamp > tail.timestamp) {
        if (!p.clamp) throw new RangeNotSatisfiableError(tail);
        pos = n;
      } else {
        // A timestamp start that lands on the tail because records were trimmed is no 416.
        return await this.seekTimestamp(start.timestamp, n);
      }
    }
    if (pos === n && !this.canFollow) throw new RangeNotSatisfiableError(tail);
    return pos;
  }

  private async seekTimestamp(t: number, n: number): Promise<number> {
    const first = await this.stream.findTimestamp(t);
    if (first === undefined || first >= n) return n;
    for (const b of await this.stream.readBatches(first, 2)) {
      for (const r of b.records) if (r.timestamp >= t && r.seqNum < n) return r.seqNum;
    }
    return n;
  }

  get done(): boolean {
    return this.ended;
  }

  async next(deadline?: number, signal?: AbortSignal): Promise<ReadStep> {
    for (;;) {
      if (this.ended) return { kind: "end" };
      if (!this.follower) {
        const batch = await this.catchUp();
        if (batch) {
          this.stream.meter.readOps++;
          return { kind: "batch", batch };
        }
        if (this.ended) return { kind: "end" };
        if (!this.canFollow) { this.ended = true; return { kind: "end" }; }
        this.follower = this.stream.follow(this.position);
        if (!this.follower) continue; // the tail moved meanwhile: catch up again
        const known = this.stream.known;
        return { kind: "following", tail: { seqNum: known.nextSeq, timestamp: known.lastTimestamp } };
      }
      const f = this.follower;
      if (f.closed) { this.close(); throw f.closed; }
      if (f.lagged) { this.close(); continue; } // fell behind: back to storage
      const live = f.queue.shift();
      if (live) {
        const { records, full } = this.take(live.records, live.trimPoint);
        // The rest of a live batch that filled an output batch is read back from storage.
        if (full) this.close();
        if (records.length > 0) {
          this.stream.meter.readOps++;
          return { kind: "batch", batch: { records, tail: live.tail } };
        }
        continue;
      }
      if (signal?.aborted || (deadline !== undefined && Date.now() >= deadline)) return { kind: "timeout" };
      await f.wait(deadline, signal);
    }
  }

  /** Stops following (the caller is done, or the follower lagged). */
  close(): void {
    if (this.follower) this.stream.unfollow(this.follower);
    this.follower = undefined;
    this.carry = undefined;
  }

  /**
   * One catch-up batch from storage, bounded by the durable tail; undefined when caught up.
   * Records of stored batches that carry their wire bytes (and need no decryption) are taken
   * by their index and sent as runs of those bytes; the rest as decoded records.
   */
  private async catchUp(): Promise<ReadBatch | undefined> {
    const known = this.stream.known;
    let tailSeq = Math.max(known.nextSeq, this.confirmed);
    const ageMs = retentionMs(this.stream.meta.config);
    const now = Date.now();
    if (this.position < known.trimPoint) this.position = Math.min(known.trimPoint, tailSeq);
    const out = new CatchUpBatch();
    // Stored batches are read as many at a time as the output batch still has room for, judged
    // by the last one's size: every value read is a copy (up to a MiB each), and reading ahead
    // blindly copied several stored batches per output batch only to read them again for the
    // next one (issue 13); streams of small batches still need only a handful of reads.
    let want = 1;
    for (;;) {
      if (this.ended) break;
      if (this.position >= tailSeq) {
        // At the tail known here: a batch ends there only if it is the tail now (another node
        // may have appended more), else a short read would look like the end of the stream.
        if (this.confirmed >= this.position) break;
        this.confirmed = (await this.stream.tailNow()).seqNum;
        tailSeq = Math.max(this.stream.known.nextSeq, this.confirmed);
        if (this.position >= tailSeq) break;
      }
      const batches = this.takeCarry() ?? await this.stream.readBatches(this.position, want);
      if (batches.length === 0) { this.position = tailSeq; break; } // removed by trim/retention
      for (const b of batches) {
        if (b.firstSeq >= tailSeq) { this.position = tailSeq; break; }
        const wire = this.open ? undefined : b.wire;
        const count = storedCount(b);
        const end = b.firstSeq + count;
        if (end <= this.position) continue;
        if (ageMs !== undefined && b.arrival + ageMs <= now) { this.position = end; continue; } // expired
        if (b.firstSeq > this.position) this.position = b.firstSeq; // a removed gap
        const from = this.position - b.firstSeq;
        const to = Math.min(count, tailSeq - b.firstSeq);
        if (wire) {
          let i = from;
          let full = false;
          for (; i < to && !full; i++) {
            const size = wire.metered(i);
            const encoded = wire.encoded(i);
            const verdict = this.admit(b.firstSeq + i, wire.timestamp(i), size, out.bytes, out.count, encoded, out.encoded);
            if (verdict !== "ok") break;
            out.count++;
            out.bytes += size;
            out.encoded += encoded;
            full = this.ended || out.count >= LIMITS.maxBatchRecords;
          }
          if (i > from) out.pieces.push(wire.slice(from, i));
          if (i < to || full) return this.finish(out, b);
          continue;
        }
        for (let i = from; i < to; i++) {
          const r = this.open ? this.open(b.records[i]!) : b.records[i]!;
          const size = meteredSize(r);
          const encoded = readSizeBound(r, size); // a bound: exact sizes cost an encode pass per record
          if (this.admit(r.seqNum, r.timestamp, size, out.bytes, out.count, encoded, out.encoded) !== "ok") return this.finish(out, b);
          out.pieces.push(r);
          out.count++;
          out.bytes += size;
          out.encoded += encoded;
          if (this.ended || out.count >= LIMITS.maxBatchRecords) return this.finish(out, b);
        }
      }
      want = storedBatchesToRead(batches[batches.length - 1]!, LIMITS.maxBatchRecords - out.count, LIMITS.maxBatchBytes - out.bytes);
    }
    return out.finish();
  }

  /** The carried stored batch, when the read goes on inside it. */
  private takeCarry(): StoredBatch[] | undefined {
    const c = this.carry;
    this.carry = undefined;
    return c && this.position >= c.firstSeq && this.position < c.firstSeq + storedCount(c) ? [c] : undefined;
  }

  /** Ends a catch-up batch inside stored batch `b`: keeps `b` for the next one unless the read ended. */
  private finish(out: CatchUpBatch, b: StoredBatch): ReadBatch | undefined {
    if (!this.ended) this.carry = b;
    return out.finish();
  }

  /** Filters a live batch by position, trim point and limits. */
  private take(records: SequencedRecord[], trimPoint: number): { records: SequencedRecord[]; full: boolean } {
    const out: SequencedRecord[] = [];
    let batchBytes = 0;
    let batchEncoded = 0;
    for (const stored of records) {
      if (stored.seqNum < this.position) continue;
      this.position = stored.seqNum;
      if (stored.seqNum < trimPoint) { this.position++; continue; }
      const r = this.open ? this.open(stored) : stored;
      const size = meteredSize(r);
      const encoded = readSizeBound(r, size); // a bound: exact sizes cost an encode pass per record
      const verdict = this.admit(r.seqNum, r.timestamp, size, batchBytes, out.length, encoded, batchEncoded);
      if (verdict === "batch-full") return { records: out, full: true };
      if (verdict !== "ok") break;
      out.push(r);
      batchBytes += size;
      batchEncoded += encoded;
      if (this.ended) break;
    }
    return { records: out, full: false };
  }

  /**
   * Decides whether `r` may be delivered and accounts for it (§7.4): `until` and a record
   * that would exceed `bytes` end the read; a full batch (1 MiB metered, 1000 records, or as
   * many encoded bytes as one session frame holds) only closes the batch.
   */
  private admit(seqNum: number, timestamp: number, size: number, batchBytes: number, batchCount: number, encoded: number, batchEncoded: number): "ok" | "stop" | "batch-full" {
    if (this.until !== undefined && timestamp >= this.until) { this.ended = true; return "stop"; }
    if (size > this.remainingBytes) { this.ended = true; return "stop"; }
    if (batchCount > 0 && (batchBytes + size > LIMITS.maxBatchBytes || batchCount >= LIMITS.maxBatchRecords || batchEncoded + encoded > MAX_READ_RECORD_BYTES)) return "batch-full";
    this.position = seqNum + 1;
    this.stream.meter.readRecords++;
    this.stream.meter.readBytes += size;
    this.remainingBytes -= size;
    this.remainingCount -= 1;
    if (this.remainingCount === 0 || this.remainingBytes === 0) this.ended = true;
    return "ok";
  }
}

/**
 * How many stored batches like `last` the rest of an output batch (`records`, `bytes` metered)
 * may take: 1 to 64, so a stream of big batches reads one at a time and one of tiny batches
 * few times.
 */
function storedBatchesToRead(last: StoredBatch, records: number, bytes: number): number {
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
class CatchUpBatch {
  readonly pieces: Array<Uint8Array | SequencedRecord> = [];
  count = 0;
  bytes = 0;
  /** Bytes of the records' encoded fields (a session frame holds MAX_READ_RECORD_BYTES). */
  encoded = 0;

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
