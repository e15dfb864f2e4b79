/**
 * A stream on a shared backend (PostgreSQL): the database sequences every append against
 * its stored tail, so appends through any number of nodes never conflict. This node plans
 * each group (seq nums as it expects them, timestamps before the stored floor; sequencing.ts) and
 * sends one group at a time per stream, with everything queued meanwhile; acks follow the commit.
 *
 * What this node knows of the stream (`known`) is a lower bound of what is stored: records
 * below it are served from here or from the batch cache; anything that must reflect every
 * append acknowledged through any node (check-tail, a 416, a heartbeat, a read at the tail)
 * asks the database (`tailNow`, shared through the tail reader).
 */
import { type SvcError, serverError } from "../../errors.js";
import { meteredBatchSize } from "../../rules/records.js";
import type { AppendAck, AppendInput, StreamPosition } from "../../types.js";
import { NO_METERS, type StreamMeter } from "../metrics/meter.js";
import { decodeLanded } from "../storage/batch-codec.js";
import type { GroupResult, MarkedState, NodeClock, SharedLog, StoredState } from "../storage/seams.js";
import { type StoredBatch, type StreamMeta, type StreamStateRecord, storedCount } from "../storage/types.js";
import type { BatchCache } from "./batch-cache.js";
import { countLive, LiveBatch, LiveFanout, type LiveSubscriber } from "./live-fanout.js";
import { type Chain, earlierRefused, type LiveStream, refused, type Submitted } from "./live-stream.js";
import { checkTimestamps } from "./sequencing.js";
import { type Entry, failGroup, groupSize, type Planned, planGroup, refusal, settle } from "./shared-group.js";
import { SharedReader } from "./shared-reader.js";
import type { StoredReader } from "./stored-reader.js";
import { type WentBack, wentBack } from "./went-back.js";

interface SharedDeps {
  log: SharedLog;
  clock: NodeClock; // arrivals are stamped by it, and ages judged
  cache: BatchCache;
  /** The stored state of a stream, read by a query that starts after the call. */
  readState(id: number): Promise<StoredState | undefined>;
  onTrim: () => void;
  /** The stored tail is below what this node knew (`from`): see `verify`. */
  wentBack?: (from: number, to: number) => void;
}

/** A stream's state as read from the database: its removal mark and a recorded loss when it has them. */
type Found = StreamStateRecord & Partial<MarkedState> & { wentBack?: WentBack };

const deleting = (): SvcError => serverError("stream_deletion_pending", "the stream is being deleted");

export class SharedStream implements LiveStream<"shared"> {
  deleting = false;
  meter: StreamMeter = NO_METERS.meter("", "", 0);
  known: StreamStateRecord;
  /** The removal mark as known here (it only rises): nothing below it is served, cached or not. */
  removedBelow: number;
  readonly exact = false;
  private queue: Entry[] = [];
  private busy = false;
  private last: Promise<void> = Promise.resolve();
  /** Readers waiting at the tail; what other nodes append reaches them through `feedLive`. */
  private readonly fanout: LiveFanout;
  /** `feedLive` is reading what other nodes appended. */
  private feeding = false;
  /** The last time the database was found to lack what this node knew (reads into it are refused). */
  lost: WentBack | undefined;

  constructor(
    public meta: StreamMeta,
    state: Found,
    private readonly deps: SharedDeps,
  ) {
    const { removedBelow = 0, wentBack: found, ...known } = state;
    this.known = known;
    this.lost = found;
    this.removedBelow = removedBelow;
    this.deleting = meta.deletedAt !== null;
    this.fanout = new LiveFanout(state.nextSeq, (b, n) => countLive(this.meter, b, n));
  }

  get id(): number {
    return this.meta.id;
  }

  append(input: AppendInput): Promise<AppendAck> {
    return this.submit(input).ack;
  }

  submit(input: AppendInput, chain?: Chain): Submitted {
    const refuse = (e: unknown): Submitted => refused(this, e, chain);
    if (chain?.failed) return refuse(earlierRefused());
    if (this.deleting) return refuse(deleting());
    const tsError = checkTimestamps(this.meta.config, input);
    if (tsError) return refuse(tsError);
    let resolve!: (ack: AppendAck) => void;
    let reject!: (e: unknown) => void;
    let markSettled!: () => void;
    const ack = new Promise<AppendAck>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const settled = new Promise<void>((res) => {
      markSettled = res;
    });
    // Its records as a group's bytes count them: metered (headers too), and 16 bytes each.
    const bytes = meteredBatchSize(input.records) + 16 * input.records.length;
    this.queue.push({ input, chain, since: performance.now(), bytes, resolve, reject, settled, markSettled });
    this.last = settled;
    if (!this.busy) void this.drain();
    return { accepted: true, ack };
  }

  whenIdle(): Promise<void> {
    return this.last;
  }

  /** One statement in flight; whatever queued meanwhile forms the next group. */
  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.length > 0) {
        const n = groupSize(this.queue);
        const group = this.queue.splice(0, n).filter((e) => {
          if (!e.chain?.failed && !this.deleting) return true;
          settle(e, e.chain?.failed ? earlierRefused() : deleting());
          return false;
        });
        if (group.length > 0) await this.commit(group);
      }
    } finally {
      this.busy = false;
    }
  }

  private async commit(group: Entry[]): Promise<void> {
    const now = this.deps.clock.now();
    // Everything below this was durable before the group was sent.
    const floor = this.known.nextSeq;
    const planned = planGroup(group, this.known, this.meta.config, now);
    let result: GroupResult;
    try {
      result = await this.deps.log.append(
        this.id,
        planned.map((p) => p.plan),
        now,
        group[0]!.since,
      );
    } catch (e) {
      failGroup(group, e);
      return;
    }
    if (result.refused) {
      this.markDeleting();
      const e =
        result.refused === "gone"
          ? serverError("stream_not_found", `stream ${this.meta.name} does not exist`)
          : deleting();
      for (const entry of group) settle(entry, e);
      return;
    }
    // Landed below records already durable: the database lost them (a failover).
    const first = result.outcomes.find((o) => o.ok)?.firstSeq;
    if (first !== undefined && first < floor)
      this.forked(
        { ...result.state, nextSeq: first, trimPoint: Math.min(result.state.trimPoint, first) },
        floor,
        first,
      );
    this.landed(group, planned, result);
  }

  /** Acks in order, live batches to followers, landed batches to the cache. */
  private landed(group: Entry[], planned: Planned[], result: GroupResult): void {
    const tail = { seqNum: result.state.nextSeq, timestamp: result.state.lastTimestamp };
    let delivered = this.known.nextSeq;
    const cached: StoredBatch[] = [];
    const live: LiveBatch[] = [];
    group.forEach((e, k) => {
      const o = result.outcomes[k]!;
      if (!o.ok) return settle(e, refusal(o));
      const { plan, records: planRecords } = planned[k]!;
      const records = planRecords.map((r, i) => ({
        ...r,
        seqNum: o.firstSeq + i,
        timestamp: Math.max(o.timestampFloor, r.timestamp),
      }));
      const end = o.firstSeq + records.length;
      cached.push(decodeLanded(o.firstSeq, plan.plannedFirst, o.timestampFloor, plan.data));
      if (o.firstSeq === delivered) {
        live.push(new LiveBatch(records, { seqNum: end, timestamp: records[records.length - 1]!.timestamp }));
        delivered = end;
      }
      const bytes = meteredBatchSize(records);
      const m = this.meter;
      m.appendOps++;
      m.appendRecords += records.length;
      m.appendBytes += bytes;
      m.storage += bytes;
      e.resolve({
        start: { seqNum: o.firstSeq, timestamp: records[0]!.timestamp },
        end: { seqNum: end, timestamp: records[records.length - 1]!.timestamp },
        tail,
      });
      e.markSettled();
    });
    this.deps.cache.put(this.id, cached);
    // The acks first: the fan-out only queues (delivery runs later), so no append waits for it.
    for (const b of live) if (b.firstSeq === this.fanout.position) this.fanout.publish(b);
    // What this node knows only moves forward: a read of the stored state may have told it of
    // later appends (through other nodes) before this group's answer came.
    if (result.state.nextSeq <= this.known.nextSeq) return void this.feedLive();
    if (delivered >= result.state.nextSeq) {
      if (result.state.trimPoint > this.known.trimPoint) this.deps.onTrim(); // the sweep has work (later)
      this.known = { ...result.state, trimPoint: Math.max(result.state.trimPoint, this.known.trimPoint) };
    } else this.observe(result.state);
  }

  /**
   * What is stored, read by a query asked for when this node knew the tail `floor`: every
   * record below `floor` was acknowledged (or read from the database) before the query began,
   * so a stored tail below it means the database lost them: a failover to a standby that had
   * not received them. Never served again: the cache drops the stream, what this node knows is
   * what is stored, and its followers are ended (each has records the database no longer
   * holds); `wentBack` reports it. Otherwise as `observe`.
   */
  verify(stored: Found, floor: number): void {
    // Ahead of what this node knew when it asked; or another check found the loss first.
    if (stored.nextSeq >= floor || this.known.nextSeq < floor) return this.observe(stored);
    this.forked(stored, floor, stored.nextSeq);
  }

  /**
   * After contact with the database was lost (perhaps it is another now: a promoted standby):
   * the stored tail is checked as `verify` does, and the last record this node knew must still
   * be stored as it knew it (its timestamp): the new primary may have lost records and taken
   * new appends since, reaching the same tail with another history.
   */
  async recheck(): Promise<"gone" | undefined> {
    const floor = this.known.nextSeq;
    const stamp = this.known.lastTimestamp;
    const stored = await this.deps.readState(this.id);
    if (!stored) {
      this.markDeleting();
      return "gone";
    }
    if (stored.nextSeq >= floor && floor > 0 && stored.removedBelow < floor) {
      const [b] = await this.deps.log.readBatches(this.id, floor - 1, 1);
      const r = b && b.firstSeq <= floor - 1 ? b.records[floor - 1 - b.firstSeq] : undefined;
      if (r && r.timestamp !== stamp) return void this.forked(stored, floor, floor - 1);
    }
    if (!stored.live) this.markDeleting();
    else this.verify(stored, floor);
    return undefined;
  }

  /**
   * The database no longer holds what this node knew up to `from` (from `to` on, at least):
   * nothing of it is served again, and every follower, which may have been given some of it,
   * is ended with `stream_tail_went_back`; `wentBack` reports it.
   */
  private forked(stored: Found, from: number, to: number): void {
    this.deps.cache.drop(this.id);
    const { nextSeq, lastTimestamp, fencingToken, trimPoint, lastArrival } = stored;
    this.known = { nextSeq, lastTimestamp, fencingToken, trimPoint, lastArrival };
    this.removedBelow = stored.removedBelow ?? Math.min(this.removedBelow, nextSeq);
    this.lost = widened(this.lost, { from, to });
    this.fanout.closeAll(wentBack(from, to));
    this.fanout.position = stored.nextSeq;
    this.deps.wentBack?.(from, to);
  }

  /**
   * What is stored, as read (or as another node's hint led to): taken when it is ahead; the
   * followers go back to storage for records they did not see.
   */
  observe(stored: Found): void {
    if (stored.wentBack) this.lost = widened(this.lost, stored.wentBack);
    this.noteRemoved(stored.removedBelow ?? 0);
    if (stored.nextSeq < this.known.nextSeq) return;
    if (stored.trimPoint > this.known.trimPoint) this.deps.onTrim();
    const moved = stored.nextSeq > this.known.nextSeq;
    this.known = {
      nextSeq: stored.nextSeq,
      lastTimestamp: stored.lastTimestamp,
      fencingToken: stored.fencingToken,
      trimPoint: Math.max(stored.trimPoint, this.known.trimPoint),
      lastArrival: stored.lastArrival,
    };
    if (moved) void this.feedLive();
  }

  /** A removal mark learnt: never served from here again, whatever the config says later. */
  noteRemoved(seq: number): void {
    if (seq <= this.removedBelow) return;
    this.removedBelow = seq;
    this.deps.cache.dropBelow(this.id, seq);
  }

  /**
   * Records this node learnt of without landing them (other nodes appended) reach its followers
   * as its own do: read once (the batch cache, else the database) and published to the fan-out,
   * in order. A gap (the records were trimmed meanwhile) or a failed read sends every follower to
   * storage, which resolves it.
   */
  private async feedLive(): Promise<void> {
    if (this.feeding) return;
    this.feeding = true;
    try {
      while (this.fanout.position < this.known.nextSeq && !this.deleting) {
        if (this.fanout.size === 0) return this.fanout.lagAll(this.known.nextSeq);
        const from = this.fanout.position;
        const batches = await this.readBatches(from, 16);
        let progressed = false;
        for (const b of batches) {
          const end = b.firstSeq + storedCount(b);
          if (end <= this.fanout.position) continue; // published meanwhile (this node landed it)
          if (b.firstSeq !== this.fanout.position || end > this.known.nextSeq) break;
          const records = b.records;
          this.fanout.publish(
            new LiveBatch(records, { seqNum: end, timestamp: records[records.length - 1]!.timestamp }),
          );
          progressed = true;
        }
        if (!progressed && this.fanout.position === from) return this.fanout.lagAll(this.known.nextSeq);
      }
    } catch {
      this.fanout.lagAll(this.known.nextSeq);
    } finally {
      this.feeding = false;
    }
  }

  async tailNow(): Promise<StreamPosition> {
    const floor = this.known.nextSeq;
    const s = await this.deps.readState(this.id);
    if (!s || !s.live) {
      this.markDeleting();
      throw s ? deleting() : serverError("stream_not_found", `stream ${this.meta.name} does not exist`);
    }
    this.verify(s, floor);
    return { seqNum: this.known.nextSeq, timestamp: this.known.lastTimestamp };
  }

  async readBatches(fromSeq: number, maxBatches: number): Promise<StoredBatch[]> {
    const hit = this.deps.cache.get(this.id, fromSeq, maxBatches);
    if (hit.length > 0) return hit;
    const gen = this.deps.cache.generation;
    const read = await this.deps.log.readBatches(this.id, fromSeq, maxBatches);
    this.deps.cache.put(this.id, read, gen);
    return read;
  }

  findTimestamp(timestamp: number): Promise<number | undefined> {
    return Promise.resolve(this.deps.log.findTimestamp(this.id, timestamp));
  }

  reader(confirmed: number): StoredReader<"shared"> {
    return new SharedReader(this, confirmed, this.deps.clock);
  }

  follow(sub: LiveSubscriber): boolean {
    if (this.deleting) throw deleting();
    return this.fanout.join(sub);
  }

  unfollow(sub: LiveSubscriber): void {
    this.fanout.leave(sub);
  }

  markDeleting(): void {
    if (this.deleting) return;
    this.deleting = true;
    this.deps.cache.drop(this.id);
    this.closeFollowers(deleting());
  }

  closeFollowers(error: SvcError): void {
    this.fanout.closeAll(error);
  }
}

/** Two findings of one stream's loss as one: from the higher tail any node knew down to the lower. */
function widened(a: WentBack | undefined, b: WentBack): WentBack {
  return a ? { from: Math.max(a.from, b.from), to: Math.min(a.to, b.to) } : b;
}
