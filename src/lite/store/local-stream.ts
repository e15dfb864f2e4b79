/**
 * A stream on a local backend (lmdb, memory): this process is its only writer, so it
 * sequences every append in memory and serialises every write to it (protocol.md §8.3, §8.6;
 * one sequencer per stream, as s2-lite: docs/design/s2-compatibility.md, "s2-lite").
 *
 * submit() runs synchronously up to the storage write: deletion check, timestamp rule,
 * fencing token, match_seq_num against the NEXT ASSIGNABLE seq (accepted but not yet
 * durable appends count, so sessions can pipeline), seq/timestamp assignment and fence/trim.
 * Acks resolve only once the covering write is durable, strictly in order. A condition
 * failure (412) is delivered only after every earlier in-flight append is durable, so the
 * value it reports can be trusted. Followers see only durable batches.
 */
import { SvcError, serverError } from "../../errors.js";
import { meteredBatchSize } from "../../rules/records.js";
import type { AppendAck, AppendInput, StreamPosition } from "../../types.js";
import { NO_METERS, type StreamMeter } from "../metrics/meter.js";
import type { LocalLog } from "../storage/seams.js";
import type { StoredBatch, StreamMeta, StreamStateRecord } from "../storage/types.js";
import { wallClock } from "../storage/wall-clock.js";
import { countLive, LiveBatch, LiveFanout, type LiveSubscriber } from "./live-fanout.js";
import { type Chain, earlierRefused, type LiveStream, refused, type Submitted } from "./live-stream.js";
import { SEQUENCING, type Sequencing } from "./sequencing.js";
import { LocalReader, type StoredReader } from "./stored-reader.js";

interface Inflight {
  batch: StoredBatch;
  state: StreamStateRecord;
  done: boolean;
  settled: Promise<void>;
  resolve: (ack: AppendAck) => void;
  reject: (e: unknown) => void;
  markSettled: () => void;
}

const deletionPending = (): SvcError => serverError("stream_deletion_pending", "the stream is being deleted");

export class LocalStream implements LiveStream<"local"> {
  /** Everything durable: what reads, check-tail and followers may see. */
  durable: StreamStateRecord;
  /** The next assignable position and the state including in-flight appends. */
  private next: StreamStateRecord;
  private inflight: Inflight[] = [];
  /** Readers waiting at the durable tail. */
  private readonly fanout: LiveFanout;
  deleting = false;
  /** Set after a storage failure: the state must be reloaded from storage. */
  broken: SvcError | undefined;
  /** Settles once every storage write issued so far has settled (they settle in order). */
  private lastWrite: Promise<void> = Promise.resolve();
  meter: StreamMeter = NO_METERS.meter("", "", 0);
  readonly exact = true;
  /** The stored removal mark (storage/seams.ts MarkedState): reads serve nothing below it. */
  removedBelow: number;

  constructor(
    public meta: StreamMeta,
    state: StreamStateRecord,
    private readonly log: LocalLog,
    private readonly onTrim: () => void = () => {},
    private readonly rules: Sequencing = SEQUENCING,
    /** The store's clock (Store.now): arrivals are stamped and retention judged by it. */
    private readonly now: () => number = wallClock,
  ) {
    this.durable = { ...state };
    this.next = { ...state };
    this.removedBelow = log.removedBelow(meta.id);
    this.fanout = new LiveFanout(state.nextSeq, (b, n) => countLive(this.meter, b, n));
    this.deleting = meta.deletedAt !== null;
  }

  get id(): number {
    return this.meta.id;
  }

  get known(): StreamStateRecord {
    return this.durable;
  }

  /** The durable tail (§7.1): next seq num and the last record's timestamp. */
  get tail(): StreamPosition {
    return { seqNum: this.durable.nextSeq, timestamp: this.durable.lastTimestamp };
  }

  tailNow(): StreamPosition {
    return this.tail;
  }

  noteRemoved(seq: number): void {
    this.removedBelow = Math.max(this.removedBelow, seq);
  }

  get idle(): boolean {
    return this.inflight.length === 0;
  }

  readBatches(fromSeq: number, maxBatches: number): StoredBatch[] {
    return this.log.readBatches(this.id, fromSeq, maxBatches);
  }

  findTimestamp(timestamp: number): number | undefined {
    return this.log.findTimestamp(this.id, timestamp);
  }

  append(input: AppendInput): Promise<AppendAck> {
    return this.submit(input).ack;
  }

  /**
   * Sequences `input` now. `accepted` says synchronously whether it was sequenced (sessions
   * stop reading at the first refusal, so nothing after it is applied); `ack` settles once it
   * is durable, or with the refusal once everything accepted before it is durable.
   */
  submit(input: AppendInput, chain?: Chain): Submitted {
    const refuse = (e: unknown): Submitted => refused(this, e, chain);
    if (chain?.failed) return refuse(earlierRefused());
    if (this.broken) return refuse(this.broken);
    if (this.deleting) return refuse(deletionPending());
    const tsError = this.rules.checkTimestamps(this.meta.config, input);
    if (tsError) return refuse(tsError);
    const condition = this.rules.checkConditions(this.next, input);
    if (condition) return refuse(condition);

    const { records, state } = this.rules.sequence(this.next, this.meta.config, input, this.now());
    this.next = state;
    const batch: StoredBatch = {
      firstSeq: records[0]!.seqNum,
      arrival: state.lastArrival,
      lastTimestamp: state.lastTimestamp,
      records,
    };
    let resolve!: (ack: AppendAck) => void;
    let reject!: (e: unknown) => void;
    let markSettled!: () => void;
    const promise = new Promise<AppendAck>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const settled = new Promise<void>((res) => {
      markSettled = res;
    });
    const entry: Inflight = { batch, state, done: false, settled, resolve, reject, markSettled };
    this.inflight.push(entry);
    this.lastWrite = this.log.appendBatch(this.id, batch, state).then(
      () => {
        entry.done = true;
        this.release();
      },
      (e: unknown) => this.fail(e, entry),
    );
    return { accepted: true, ack: promise };
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
    }
    const tail = this.tail;
    for (const e of released) {
      const first = e.batch.records[0]!;
      const last = e.batch.records[e.batch.records.length - 1]!;
      e.resolve({
        start: { seqNum: first.seqNum, timestamp: first.timestamp },
        end: { seqNum: last.seqNum + 1, timestamp: last.timestamp },
        tail,
      });
      e.markSettled();
      const bytes = meteredBatchSize(e.batch.records);
      const m = this.meter;
      m.appendOps++;
      m.appendRecords += e.batch.records.length;
      m.appendBytes += bytes;
      m.storage += bytes;
    }
    // The acks first: the fan-out only queues (delivery runs later), so no append waits for it.
    for (const e of released) {
      this.fanout.publish(
        new LiveBatch(e.batch.records, { seqNum: e.state.nextSeq, timestamp: e.state.lastTimestamp }),
      );
    }
  }

  /** A failed write leaves the in-memory state ahead of storage: fail everything pending. */
  private fail(cause: unknown, entry: Inflight): void {
    if (!this.inflight.includes(entry)) return; // already failed with an earlier entry
    // A write refused before it reached the disk (507 storage_full) keeps its own answer.
    const error =
      cause instanceof SvcError && cause.code === "storage_full"
        ? cause
        : new SvcError({
            code: "storage",
            message: "storage write failed (the server's log says why)",
            origin: "server",
            status: 500,
            cause,
          });
    this.broken = error;
    for (const e of this.inflight.splice(0)) {
      e.reject(error);
      e.markSettled();
    }
    this.fanout.closeAll(error);
  }

  reader(): StoredReader<"local"> {
    return new LocalReader(this, this.now);
  }

  follow(s: LiveSubscriber): boolean {
    if (this.deleting) throw deletionPending();
    if (this.broken) throw this.broken;
    return this.fanout.join(s);
  }

  unfollow(s: LiveSubscriber): void {
    this.fanout.leave(s);
  }

  markDeleting(): void {
    this.deleting = true;
    this.fanout.closeAll(deletionPending());
  }

  closeFollowers(error: SvcError): void {
    this.fanout.closeAll(error);
  }
}
