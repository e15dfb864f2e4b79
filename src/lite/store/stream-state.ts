/**
 * One in-memory state per active stream; it serialises every write to that stream
 * (protocol.md §8.3, §8.6; lite-anchor.md §1.3).
 *
 * append() runs synchronously up to the storage write: deletion check, timestamp rule,
 * fencing token, match_seq_num against the NEXT ASSIGNABLE seq (accepted but not yet
 * durable appends count, so sessions can pipeline), seq/timestamp assignment and fence/trim.
 * Acks resolve only once the covering write is durable, strictly in order. A condition
 * failure (412) is delivered only after every earlier in-flight append is durable, so the
 * value it reports can be trusted; on shared storage it is judged again against the stored
 * state at that point (refuseShared). Followers see only durable batches.
 */
import { serverError, SvcError } from "../../errors.js";
import type { AppendAck, AppendInput, StreamPosition } from "../../types.js";
import type { Storage, StoredBatch, StreamMeta, StreamStateRecord } from "../storage/storage.js";
import { checkConditions, checkTimestamps, sequence } from "./sequencing.js";
import { Follower } from "./follower.js";
import { TEST_FAULT } from "../test-fault.js";
import { meteredBatchSize } from "../../wire/batch.js";
import { NO_METERS, type StreamMeter } from "../metrics/meter.js";

interface Inflight {
  batch: StoredBatch;
  state: StreamStateRecord;
  done: boolean;
  settled: Promise<void>;
  resolve: (ack: AppendAck) => void;
  reject: (e: unknown) => void;
  markSettled: () => void;
}

export class StreamState {
  /** Everything durable: what reads, check-tail and followers may see. */
  durable: StreamStateRecord;
  /** The next assignable position and the state including in-flight appends. */
  private next: StreamStateRecord;
  private inflight: Inflight[] = [];
  private followers = new Set<Follower>();
  deleting = false;
  /** Shared storage: the most advanced stored state seen (observe), applied or not. */
  private lastStored: StreamStateRecord | undefined;
  /** Set after a storage failure: the state must be reloaded from storage. */
  broken: SvcError | undefined;
  /** Settles once every storage write issued so far has settled (they settle in order). */
  private lastWrite: Promise<void> = Promise.resolve();
  /** test-fault "reorder": an ack held back to be swapped with the next one. */
  private heldAck: { e: Inflight; ack: AppendAck; timer: NodeJS.Timeout } | undefined;
  /** Metrics counters of this stream (the store sets them; a scratch object when off). */
  meter: StreamMeter = NO_METERS.meter("", "");

  constructor(public meta: StreamMeta, state: StreamStateRecord, private readonly storage: Storage, private readonly onTrim: () => void = () => {}) {
    this.durable = { ...state };
    this.next = { ...state };
    this.deleting = meta.deletedAt !== null;
  }

  get id(): number {
    return this.meta.id;
  }

  /** The durable tail (§7.1): next seq num and the last record's timestamp. */
  get tail(): StreamPosition {
    return { seqNum: this.durable.nextSeq, timestamp: this.durable.lastTimestamp };
  }

  get idle(): boolean {
    return this.inflight.length === 0;
  }

  append(input: AppendInput): Promise<AppendAck> {
    return this.submit(input).ack;
  }

  /**
   * Sequences `input` now. `accepted` says synchronously whether it was sequenced (sessions
   * stop reading at the first refusal, so nothing after it is applied); `ack` settles once it
   * is durable, or with the refusal once everything accepted before it is durable.
   */
  submit(input: AppendInput): { accepted: boolean; ack: Promise<AppendAck> } {
    const refuse = (e: unknown): { accepted: false; ack: Promise<AppendAck> } => ({ accepted: false, ack: this.whenIdle().then(() => { throw e; }) });
    if (this.broken) return refuse(this.broken);
    if (this.deleting) return refuse(serverError("stream_deletion_pending", "the stream is being deleted"));
    const tsError = checkTimestamps(this.meta.config, input);
    if (tsError) return refuse(tsError);
    const condition = checkConditions(this.next, input);
    if (condition) return this.storage.shared ? { accepted: false, ack: this.refuseShared(input) } : refuse(condition);

    const { records, state } = sequence(this.next, this.meta.config, input, Date.now());
    this.next = state;
    const batch: StoredBatch = { firstSeq: records[0]!.seqNum, arrival: state.lastArrival, lastTimestamp: state.lastTimestamp, records };
    let resolve!: (ack: AppendAck) => void;
    let reject!: (e: unknown) => void;
    let markSettled!: () => void;
    const promise = new Promise<AppendAck>((res, rej) => { resolve = res; reject = rej; });
    const settled = new Promise<void>((res) => { markSettled = res; });
    const entry: Inflight = { batch, state, done: false, settled, resolve, reject, markSettled };
    this.inflight.push(entry);
    if (TEST_FAULT === "ack-before-sync") queueMicrotask(() => { entry.done = true; this.release(); });
    const stored = TEST_FAULT === "drop-last" && records.length > 1 ? { ...batch, records: records.slice(0, -1) } : batch;
    this.lastWrite = this.storage.appendBatch(this.id, stored, state).then(
      () => { entry.done = true; this.release(); },
      (e: unknown) => this.fail(e, entry),
    );
    return { accepted: true, ack: promise };
  }

  /**
   * Shared storage: this node's view may be wrong in both directions. Appends in flight here
   * count in it, and they fail when another node appended first; and another node may have
   * moved the tail since this node last heard. Either way a 412 would report a tail (or
   * token) that the stream never had at any moment of the request. So once this node's
   * earlier appends have settled, the condition is judged again against the stored state:
   * still failing, the 412 reports what is stored; met after all, nothing was written and
   * the answer is the retryable 409 transaction_conflict.
   */
  private async refuseShared(input: AppendInput): Promise<AppendAck> {
    await this.whenIdle();
    const stored = this.storage.getState(this.id);
    if (!stored) throw serverError("stream_not_found", "the stream is gone");
    this.observe(stored);
    throw checkConditions(stored, input) ?? serverError("transaction_conflict", "the stream was appended through another node at the same moment; nothing was written: retry");
  }

  /** Resolves once every append accepted so far is durable (or has failed). */
  whenIdle(): Promise<void> {
    const last = this.inflight[this.inflight.length - 1];
    return last ? last.settled : Promise.resolve();
  }

  /**
   * After a failure: resolves once no write of this state can still land, so a reload from
   * storage sees the final durable tail (batches sequenced behind a failed one are skipped by
   * storage, never written beyond a hole).
   */
  writesSettled(): Promise<void> {
    return this.lastWrite;
  }

  /** Acks complete in order: only a done prefix of the queue is released. */
  private release(): void {
    const released: Inflight[] = [];
    while (this.inflight.length > 0 && this.inflight[0]!.done) {
      const e = this.inflight.shift()!;
      if (e.state.trimPoint > this.durable.trimPoint) this.onTrim();
      this.durable = e.state;
      released.push(e);
      const tail = { seqNum: e.state.nextSeq, timestamp: e.state.lastTimestamp };
      for (const f of this.followers) f.push({ records: e.batch.records, tail, trimPoint: e.state.trimPoint });
    }
    const tail = this.tail;
    for (const e of released) {
      const first = e.batch.records[0]!;
      const last = e.batch.records[e.batch.records.length - 1]!;
      const ack = {
        start: { seqNum: first.seqNum, timestamp: first.timestamp },
        end: { seqNum: last.seqNum + 1, timestamp: last.timestamp },
        tail,
      };
      if (TEST_FAULT && this.testFault(e, ack)) continue;
      e.resolve(ack);
      e.markSettled();
      const bytes = meteredBatchSize(e.batch.records);
      const m = this.meter;
      m.appendOps++;
      m.appendRecords += e.batch.records.length;
      m.appendBytes += bytes;
      m.storage += bytes;
    }
  }

  /** Seeded bugs in acks (test-fault.ts); true when the ack was taken care of. */
  private testFault(e: Inflight, ack: AppendAck): boolean {
    if (TEST_FAULT === "skip-seq" && ack.start.seqNum % 50 >= 45) {
      ack.start.seqNum += 1;
      ack.end.seqNum += 1;
    }
    if (TEST_FAULT !== "reorder") return false;
    const held = this.heldAck;
    if (!held && ack.start.seqNum % 10 === 3) {
      this.heldAck = { e, ack, timer: setTimeout(() => { this.heldAck = undefined; e.resolve(ack); e.markSettled(); }, 100) };
      return true;
    }
    if (!held) return false;
    this.heldAck = undefined;
    clearTimeout(held.timer);
    held.e.resolve(ack);
    held.e.markSettled();
    e.resolve(held.ack);
    e.markSettled();
    return true;
  }

  /** A failed write leaves the in-memory state ahead of storage: fail everything pending. */
  private fail(cause: unknown, entry: Inflight): void {
    if (!this.inflight.includes(entry)) return; // already failed with an earlier entry
    if (cause instanceof SvcError && cause.code === "transaction_conflict" && this.resync(cause)) return;
    // A write refused before it reached the disk (507 storage_full) keeps its own answer.
    const error = cause instanceof SvcError && cause.code === "storage_full" ? cause
      : new SvcError({ code: "storage", message: `storage write failed: ${(cause as Error)?.message ?? cause}`, origin: "server", status: 500, cause });
    this.broken = error;
    for (const e of this.inflight.splice(0)) {
      e.reject(error);
      e.markSettled();
    }
    for (const f of this.followers) f.close(error);
    this.followers.clear();
  }

  /**
   * Shared storage: another node appended first, so nothing pending was written. Everything
   * pending fails with the retryable conflict and the state restarts from the stored tail.
   */
  private resync(error: SvcError): boolean {
    let stored: StreamStateRecord | undefined;
    try {
      stored = this.storage.getState(this.id);
    } catch {
      return false;
    }
    if (!stored) return false;
    for (const e of this.inflight.splice(0)) {
      e.reject(error);
      e.markSettled();
    }
    this.advance(stored);
    return true;
  }

  /**
   * Shared storage: the stored state as another node left it. Applied only when nothing of
   * this node is in flight (otherwise those writes settle it) and it is ahead; followers go
   * back to storage for the records they did not see.
   */
  observe(stored: StreamStateRecord): void {
    if (stored.nextSeq > (this.lastStored?.nextSeq ?? -1)) this.lastStored = { ...stored };
    if (this.inflight.length > 0 || this.deleting || stored.nextSeq <= this.durable.nextSeq) return;
    this.advance(stored);
  }

  /**
   * Check-tail: the durable tail, or, on shared storage, the stored tail last read when it is
   * ahead (observe could not apply it while appends of this node were in flight). The store
   * reads the stored state at the start of every request, so this is never behind the
   * database at that moment: without it a node busy appending reported a tail that other
   * nodes had already moved past.
   */
  get latestTail(): StreamPosition {
    const s = this.lastStored && this.lastStored.nextSeq > this.durable.nextSeq ? this.lastStored : this.durable;
    return { seqNum: s.nextSeq, timestamp: s.lastTimestamp };
  }

  private advance(stored: StreamStateRecord): void {
    if (stored.trimPoint > this.durable.trimPoint) this.onTrim();
    this.durable = { ...stored };
    this.next = { ...stored };
    for (const f of this.followers) f.lag();
  }

  /** Registers a follower at `fromSeq`; undefined when the durable tail has moved past it. */
  follow(fromSeq: number): Follower | undefined {
    if (this.durable.nextSeq !== fromSeq) return undefined;
    const f = new Follower();
    if (this.deleting) f.close(serverError("stream_deletion_pending", "the stream is being deleted"));
    else if (this.broken) f.close(this.broken);
    else this.followers.add(f);
    return f;
  }

  unfollow(f: Follower): void {
    this.followers.delete(f);
  }

  /** Seals the stream: no more appends; followers end with 409. */
  markDeleting(): void {
    this.deleting = true;
    const error = serverError("stream_deletion_pending", "the stream is being deleted");
    for (const f of this.followers) f.close(error);
    this.followers.clear();
  }

  /** Ends every follower (server shutdown). */
  closeFollowers(error: SvcError): void {
    for (const f of this.followers) f.close(error);
    this.followers.clear();
  }
}
