/**
 * The read engine (protocol.md §7) of unary reads, read sessions and SSE: resolve the start
 * (read-start.ts), catch up from storage in batches of ≤ 1000 records / ≤ 1 MiB, then follow
 * live durable appends through a bounded Follower, accounting for count, bytes, until, trims.
 * The caller drives it with next(deadline): a data batch (catch-up batches have no `tail`,
 * live ones do), "following" (a session's first heartbeat), "timeout" (deadline passed while
 * following) or "end" (a limit or `until` reached, or a read that cannot follow caught up).
 *
 * Records below the stream's known tail (LiveStream.known) are served without asking who else
 * appended; where the answer depends on the tail now (the 416 rules, a tail offset, whether a
 * read has caught up, a gap left by a trim), `tailNow` is asked: on a shared backend it
 * reflects every append acknowledged through any node.
 */
import { LIMITS, type ReadBatch, type SequencedRecord, type StreamPosition } from "../../types.js";
import { MAX_READ_RECORD_BYTES, meteredSize, readSizeBound } from "../../rules/records.js";
import { storedCount, type StoredBatch } from "../storage/types.js";
import { CatchUpBatch, storedBatchesToRead } from "./catch-up.js";
import { resolveStart, validateReadParams, type ReadParams } from "./read-start.js";
import type { Follower } from "./follower.js";
import { retentionMs } from "./stream-config.js";
import type { LiveStream } from "./live-stream.js";

export type ReadStep =
  | { kind: "batch"; batch: ReadBatch }
  | { kind: "following"; tail: StreamPosition }
  | { kind: "timeout" }
  | { kind: "end" };

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
  static async open(
    stream: LiveStream,
    params: ReadParams,
    unary: boolean,
    open?: (r: SequencedRecord) => SequencedRecord,
  ): Promise<ReadCursor> {
    const cursor = new ReadCursor(stream, params, unary, open);
    const start = await resolveStart(stream, params, cursor.canFollow);
    cursor.position = start.position;
    cursor.confirmed = start.confirmed;
    return cursor;
  }

  private constructor(
    private readonly stream: LiveStream,
    params: ReadParams,
    unary: boolean,
    private readonly open?: (r: SequencedRecord) => SequencedRecord,
  ) {
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
        if (!this.canFollow) {
          this.ended = true;
          return { kind: "end" };
        }
        this.follower = this.stream.follow(this.position);
        if (!this.follower) {
          // The tail moved meanwhile: catch up again, from the tail as it is now.
          this.confirmed = -1;
          continue;
        }
        const known = this.stream.known;
        return { kind: "following", tail: { seqNum: known.nextSeq, timestamp: known.lastTimestamp } };
      }
      const f = this.follower;
      if (f.closed) {
        this.close();
        throw f.closed;
      }
      if (f.lagged) {
        this.close();
        continue;
      } // fell behind: back to storage
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

  /** The tail now (as stored, on a shared stream): the new bound of the catch-up. */
  private async tailNow(): Promise<number> {
    this.confirmed = (await this.stream.tailNow()).seqNum;
    return Math.max(this.stream.known.nextSeq, this.confirmed);
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
    let out = new CatchUpBatch();
    // Batches per storage read: as many as the output still has room for (each value read is a copy).
    let want = 1;
    let refreshed = false;
    for (;;) {
      if (this.ended) break;
      if (this.position >= tailSeq) {
        // At the tail known here: the end only if it is the tail now (another node may have appended).
        if (this.confirmed >= this.position) break;
        tailSeq = await this.tailNow();
        if (this.position >= tailSeq) break;
      }
      const batches = this.takeCarry() ?? (await this.stream.readBatches(this.position, want));
      if (batches.length === 0) {
        // Removed by trim or retention (shared: maybe by a trim past the tail this read knows).
        if (!this.stream.exact && !refreshed) {
          refreshed = true;
          tailSeq = await this.tailNow();
          continue;
        }
        this.position = tailSeq;
        break;
      }
      for (const b of batches) {
        // Past the tail: the end of the read, unless records are missing before it (a gap, below).
        if (b.firstSeq >= tailSeq && (this.stream.exact || b.firstSeq <= this.position)) {
          this.position = tailSeq;
          break;
        }
        const count = storedCount(b);
        const end = b.firstSeq + count;
        if (end <= this.position) continue;
        if (ageMs !== undefined && b.arrival + ageMs <= now) {
          this.position = end;
          continue;
        } // expired
        if (b.firstSeq > this.position) {
          // Where another node may have trimmed, a gap is a prefix removed while this read went
          // on: it starts again past it and the trim point now known, never with a hole, bounded
          // by the tail now (the trim lies past the tail it knew). An exact stream has no such gap.
          this.position = b.firstSeq;
          if (!this.stream.exact) {
            if (out.count > 0) out = this.discard(out);
            tailSeq = await this.tailNow();
            this.position = Math.max(b.firstSeq, this.stream.known.trimPoint);
            if (this.position >= end) continue;
          }
        }
        if (this.takeFrom(b, Math.min(count, tailSeq - b.firstSeq), out)) return this.finish(out, b);
      }
      want = storedBatchesToRead(
        batches[batches.length - 1]!,
        Math.min(LIMITS.maxBatchRecords - out.count, this.remainingCount),
        Math.min(LIMITS.maxBatchBytes - out.bytes, this.remainingBytes),
      );
    }
    return out.finish();
  }

  /**
   * Takes records of stored batch `b` from the position up to index `to` into `out`: runs of
   * its wire bytes when it has them (and needs no decryption), else decoded records. True when
   * `out` is full or the read ended inside `b`.
   */
  private takeFrom(b: StoredBatch, to: number, out: CatchUpBatch): boolean {
    const from = this.position - b.firstSeq;
    const wire = this.open ? undefined : b.wire;
    if (wire) {
      let i = from;
      let full = false;
      for (; i < to && !full; i++) {
        const size = wire.metered(i);
        const encoded = wire.encoded(i);
        if (this.admit(b.firstSeq + i, wire.timestamp(i), size, out.bytes, out.count, encoded, out.encoded) !== "ok")
          break;
        out.count++;
        out.bytes += size;
        out.encoded += encoded;
        full = this.ended || out.count >= LIMITS.maxBatchRecords;
      }
      if (i > from) out.pieces.push(wire.slice(from, i));
      return i < to || full;
    }
    for (let i = from; i < to; i++) {
      const r = this.open ? this.open(b.records[i]!) : b.records[i]!;
      const size = meteredSize(r);
      const encoded = readSizeBound(r, size); // a bound: exact sizes cost an encode pass per record
      if (this.admit(r.seqNum, r.timestamp, size, out.bytes, out.count, encoded, out.encoded) !== "ok") return true;
      out.pieces.push(r);
      out.count++;
      out.bytes += size;
      out.encoded += encoded;
      if (this.ended || out.count >= LIMITS.maxBatchRecords) return true;
    }
    return false;
  }

  /** Gives back what `out` took (limits, metrics): an empty batch to start again. */
  private discard(out: CatchUpBatch): CatchUpBatch {
    this.remainingCount += out.count;
    this.remainingBytes += out.bytes;
    this.stream.meter.readRecords -= out.count;
    this.stream.meter.readBytes -= out.bytes;
    return new CatchUpBatch();
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
      if (stored.seqNum < trimPoint) {
        this.position++;
        continue;
      }
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
  private admit(
    seqNum: number,
    timestamp: number,
    size: number,
    batchBytes: number,
    batchCount: number,
    encoded: number,
    batchEncoded: number,
  ): "ok" | "stop" | "batch-full" {
    if (this.until !== undefined && timestamp >= this.until) {
      this.ended = true;
      return "stop";
    }
    if (size > this.remainingBytes) {
      this.ended = true;
      return "stop";
    }
    if (
      batchCount > 0 &&
      (batchBytes + size > LIMITS.maxBatchBytes ||
        batchCount >= LIMITS.maxBatchRecords ||
        batchEncoded + encoded > MAX_READ_RECORD_BYTES)
    )
      return "batch-full";
    this.position = seqNum + 1;
    this.stream.meter.readRecords++;
    this.stream.meter.readBytes += size;
    this.remainingBytes -= size;
    this.remainingCount -= 1;
    if (this.remainingCount === 0 || this.remainingBytes === 0) this.ended = true;
    return "ok";
  }
}
