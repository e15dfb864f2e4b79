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
 */
import { RangeNotSatisfiableError, serverError } from "../../errors.js";
import type { ReadBatch, SequencedRecord, StreamPosition } from "../../types.js";
import { LIMITS } from "../../types.js";
import { meteredSize } from "../../wire/batch.js";
import type { Storage } from "../storage/storage.js";
import type { Follower } from "./follower.js";
import { retentionMs } from "./stream-config.js";
import type { StreamState } from "./stream-state.js";
import { TEST_FAULT } from "../test-fault.js";

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
   * @param open the reader's view of a stored record (decryption, §8.8); it may throw
   *   `decryption_failed`. Limits count what the reader gets.
   */
  constructor(private readonly stream: StreamState, private readonly storage: Storage, params: ReadParams, unary: boolean, private readonly open?: (r: SequencedRecord) => SequencedRecord) {
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
    this.position = this.resolveStart(params);
    if (this.remainingCount === 0 || this.remainingBytes === 0) this.ended = true;
  }

  /** §7.2 and §7.3. Throws 416 with the durable tail. */
  private resolveStart(p: ReadParams): number {
    const tail = this.stream.tail;
    const n = tail.seqNum;
    const start = p.start ?? { tailOffset: 0 };
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
        return this.seekTimestamp(start.timestamp, n);
      }
    }
    if (pos === n && !this.canFollow) throw new RangeNotSatisfiableError(tail);
    return pos;
  }

  private seekTimestamp(t: number, n: number): number {
    const first = this.storage.findTimestamp(this.stream.id, t);
    if (first === undefined || first >= n) return n;
    for (const b of this.storage.readBatches(this.stream.id, first, 2)) {
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
        const records = this.catchUp();
        if (records.length > 0) {
          this.stream.meter.readOps++;
          return { kind: "batch", batch: { records } };
        }
        if (this.ended) return { kind: "end" };
        if (!this.canFollow) { this.ended = true; return { kind: "end" }; }
        this.follower = this.stream.follow(this.position);
        if (!this.follower) continue; // the tail moved meanwhile: catch up again
        return { kind: "following", tail: this.stream.tail };
      }
      const f = this.follower;
      if (f.closed) { this.close(); throw f.closed; }
      if (f.lagged) { this.close(); continue; } // fell behind: back to storage
      const live = f.queue.shift();
      if (live) {
        const records = this.take(TEST_FAULT === "read-skip" && live.records.length > 1 && live.records[0]!.seqNum % 2 === 1 ? live.records.slice(1) : live.records, live.trimPoint);
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
  }

  /** One catch-up batch from storage, bounded by the durable tail; [] when caught up. */
  private catchUp(): SequencedRecord[] {
    const tailSeq = this.stream.durable.nextSeq;
    const ageMs = retentionMs(this.stream.meta.config);
    const now = Date.now();
    if (this.position < this.stream.durable.trimPoint) this.position = Math.min(this.stream.durable.trimPoint, tailSeq);
    const out: SequencedRecord[] = [];
    let batchBytes = 0;
    // Stored batches are read a few at a time, more each round: one big stored batch fills an
    // output batch alone (reading four of 1,000 records each to send one decoded 4x too much:
    // issue 13), while streams of small batches still need only a handful of reads.
    let want = 1;
    while (this.position < tailSeq && !this.ended) {
      const batches = this.storage.readBatches(this.stream.id, this.position, want);
      want = Math.min(want * 4, 64);
      if (batches.length === 0) { this.position = tailSeq; break; } // removed by trim/retention
      for (const b of batches) {
        if (b.firstSeq >= tailSeq) { this.position = tailSeq; break; }
        const end = b.firstSeq + b.records.length;
        if (end <= this.position) continue;
        if (ageMs !== undefined && b.arrival + ageMs <= now) { this.position = end; continue; } // expired
        if (b.firstSeq > this.position) this.position = b.firstSeq; // a removed gap
        for (let i = this.position - b.firstSeq; i < b.records.length; i++) {
          const stored = b.records[i]!;
          if (stored.seqNum >= tailSeq) break;
          const r = this.open ? this.open(stored) : stored;
          const verdict = this.admit(r, batchBytes, out.length);
          if (verdict === "batch-full") return out;
          if (verdict === "stop") return out;
          out.push(r);
          batchBytes += meteredSize(r);
          if (this.ended || out.length >= LIMITS.maxBatchRecords) return out;
        }
      }
    }
    return out;
  }

  /** Filters a live batch by position, trim point and limits. */
  private take(records: SequencedRecord[], trimPoint: number): SequencedRecord[] {
    const out: SequencedRecord[] = [];
    let batchBytes = 0;
    for (const stored of records) {
      if (stored.seqNum < this.position) continue;
      this.position = stored.seqNum;
      if (stored.seqNum < trimPoint) { this.position++; continue; }
      const r = this.open ? this.open(stored) : stored;
      const verdict = this.admit(r, batchBytes, out.length);
      if (verdict !== "ok") break;
      out.push(r);
      batchBytes += meteredSize(r);
      if (this.ended) break;
    }
    return out;
  }

  /**
   * Decides whether `r` may be delivered and accounts for it (§7.4): `until` and a record
   * that would exceed `bytes` end the read; a full 1 MiB batch only closes the batch.
   */
  private admit(r: SequencedRecord, batchBytes: number, batchCount: number): "ok" | "stop" | "batch-full" {
    if (this.until !== undefined && r.timestamp >= this.until) { this.ended = true; return "stop"; }
    const size = meteredSize(r);
    if (size > this.remainingBytes) { this.ended = true; return "stop"; }
    if (batchCount > 0 && (batchBytes + size > LIMITS.maxBatchBytes || batchCount >= LIMITS.maxBatchRecords)) return "batch-full";
    this.position = r.seqNum + 1;
    this.stream.meter.readRecords++;
    this.stream.meter.readBytes += size;
    this.remainingBytes -= size;
    this.remainingCount -= 1;
    if (this.remainingCount === 0 || this.remainingBytes === 0) this.ended = true;
    return "ok";
  }
}
