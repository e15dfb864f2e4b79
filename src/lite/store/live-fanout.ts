/**
 * The live path of reads (protocol.md §6.6, §7.5): every reader waiting at a stream's tail is a
 * subscriber of the stream's fan-out, and each batch that becomes durable is offered to all of
 * them, in order, with the same bytes. A batch is encoded once per wire shape its subscribers
 * read (an SSE data line per record format, a session frame per compression: `shape`), however
 * many subscribers read that shape.
 *
 * The writer is never a follower's hostage: `publish` only queues the batch; delivery runs
 * later (after the acks of the appends that made the batch are on their way), in slices that
 * let other work run between them. A subscriber takes a batch synchronously or leaves (it reads
 * storage from its position, then may join again): it never holds the fan-out or the others.
 * Batches published while a round runs are merged into the next round (up to the size of one
 * read batch), so a writer faster than the fan-out costs fewer, larger deliveries.
 *
 * A batch is delivered whole whatever it trims: a trim is carried out later, by the sweep
 * (protocol.md §7.7), and every follower reading at a batch gets all of its records.
 */
import type { SvcError } from "../../errors.js";
import { meteredBatchSize } from "../../rules/records.js";
import { LIMITS, type ReadBatch, type SequencedRecord, type StreamPosition } from "../../types.js";
import type { StreamMeter } from "../metrics/meter.js";

/** Subscribers served per event-loop turn of a round. */
const SLICE = 256;

/** One durable batch (or several, merged) as every subscriber is offered it. */
export class LiveBatch {
  readonly firstSeq: number;
  readonly end: number;
  /** When its round began (ms epoch): every subscriber's delivery time, read once per round. */
  at = 0;
  /** Subscribers that took it (counted into the stream's metrics once, after the round). */
  deliveries = 0;
  private meteredBytes: number | undefined;
  private readonly shapes = new Map<string, Uint8Array>();
  private readonly events = new Map<string, Map<number, { bytes: number; pieces: readonly Uint8Array[] }>>();

  constructor(
    readonly records: SequencedRecord[],
    /** The stream's tail just after these records. */
    readonly tail: StreamPosition,
  ) {
    this.firstSeq = records[0]!.seqNum;
    this.end = this.firstSeq + records.length;
  }

  get lastTimestamp(): number {
    return this.records[this.records.length - 1]!.timestamp;
  }

  /** Metered size of the records (rules/records.ts). */
  get metered(): number {
    return (this.meteredBytes ??= meteredBatchSize(this.records));
  }

  /** As a read sends it: the records with the tail after them. */
  get readBatch(): ReadBatch {
    return { records: this.records, tail: this.tail };
  }

  /** The bytes of wire shape `key` (made once, by the first subscriber that reads that shape). */
  shaped(key: string): Uint8Array | undefined {
    return this.shapes.get(key);
  }

  setShape(key: string, bytes: Uint8Array): void {
    this.shapes.set(key, bytes);
  }

  /**
   * Whole events of shape `key` made for followers that delivered the same amounts before it,
   * by their count then (with their bytes then): see session/sse.ts `liveEvent`.
   */
  joined(key: string): Map<number, { bytes: number; pieces: readonly Uint8Array[] }> {
    let m = this.events.get(key);
    if (!m) this.events.set(key, (m = new Map()));
    return m;
  }
}

/** A reader waiting at the tail. */
export interface LiveSubscriber {
  /** Where it reads next: it takes only a batch that starts exactly there. */
  readonly position: number;
  /** The wire shape it reads, and how to make it from a batch (once per batch and shape). */
  readonly shape: { key: string; make: (b: LiveBatch) => Uint8Array | Promise<Uint8Array> } | undefined;
  /**
   * Takes `b` (which starts at its position): true when delivered, false when it leaves the
   * live path instead (it reads the batch from storage). Never throws.
   */
  offer(b: LiveBatch): boolean;
  /** It cannot be served live any more: it missed records (`lagged`) or the stream ended for it. */
  evicted(why: "lagged" | SvcError): void;
}

export class LiveFanout {
  private readonly subs = new Set<LiveSubscriber>();
  private pending: LiveBatch[] = [];
  private running = false;

  /**
   * @param position where the next batch published starts (the durable tail as far as published).
   * @param counted told, after each round, how many subscribers took the batch (the stream's read metrics).
   */
  constructor(
    public position: number,
    private readonly counted: (b: LiveBatch, deliveries: number) => void = () => {},
  ) {}

  get size(): number {
    return this.subs.size;
  }

  /** Adds `s` when it is not behind what was published (else it reads storage first). */
  join(s: LiveSubscriber): boolean {
    if (s.position < this.position) return false;
    this.subs.add(s);
    return true;
  }

  leave(s: LiveSubscriber): void {
    this.subs.delete(s);
  }

  /** A batch became durable right after the last one published: queued for the subscribers. */
  publish(b: LiveBatch): void {
    if (b.firstSeq !== this.position) {
      // Records between were never published here (another node wrote them): nobody can be
      // served live past them without reading storage.
      this.lagAll();
    }
    this.position = b.end;
    if (this.subs.size === 0) return;
    this.pending.push(b);
    if (!this.running) {
      this.running = true;
      setImmediate(() => void this.round());
    }
  }

  /** The stream moved past what was published (without the records): every subscriber reads storage. */
  lagAll(position = this.position): void {
    this.position = Math.max(this.position, position);
    this.pending = [];
    this.evictAll("lagged");
  }

  /** Ends every subscriber with `error` (the stream is being deleted, storage failed, shutdown). */
  closeAll(error: SvcError): void {
    this.pending = [];
    this.evictAll(error);
  }

  private evictAll(why: "lagged" | SvcError): void {
    const all = [...this.subs];
    this.subs.clear();
    for (const s of all) s.evicted(why);
  }

  /** Delivers the pending batches, merged, to every subscriber; then the next ones. */
  private async round(): Promise<void> {
    try {
      while (this.pending.length > 0 && this.subs.size > 0) {
        const b = merged(this.pending);
        try {
          await this.encodeShapes(b);
        } catch {
          // A shape that cannot be made (a compressor failed): the batch is durable, so everyone
          // reads it, and what follows, from storage instead.
          this.lagAll();
          continue;
        }
        let served = 0;
        b.at = Date.now();
        for (const s of this.subs) {
          if (s.position === b.firstSeq) {
            if (!s.offer(b)) this.subs.delete(s);
          } else if (s.position < b.end) {
            // It missed records before the batch, or joined inside a merged one: storage has them.
            this.subs.delete(s);
            s.evicted("lagged");
          }
          // A subscriber at or past the batch's end joined after it was published: nothing to give it.
          if (++served % SLICE === 0) await new Promise<void>((r) => setImmediate(r));
        }
        if (b.deliveries > 0) this.counted(b, b.deliveries);
      }
    } finally {
      this.pending = this.subs.size > 0 ? this.pending : [];
      this.running = false;
      if (this.pending.length > 0) {
        this.running = true;
        setImmediate(() => void this.round());
      }
    }
  }

  /** Makes each shape the subscribers read, once. */
  private async encodeShapes(b: LiveBatch): Promise<void> {
    const made = new Map<string, (b: LiveBatch) => Uint8Array | Promise<Uint8Array>>();
    for (const s of this.subs) if (s.shape && !made.has(s.shape.key)) made.set(s.shape.key, s.shape.make);
    for (const [key, make] of made) b.setShape(key, await make(b));
  }
}

/** The first pending batches, as one (at most a read batch's records and bytes); the rest stay pending. */
function merged(pending: LiveBatch[]): LiveBatch {
  const first = pending.shift()!;
  if (pending.length === 0) return first;
  const records = [...first.records];
  let bytes = first.metered;
  let last = first;
  while (pending.length > 0) {
    const next = pending[0]!;
    if (next.firstSeq !== last.end) break;
    if (records.length + next.records.length > LIMITS.maxBatchRecords || bytes + next.metered > LIMITS.maxBatchBytes)
      break;
    pending.shift();
    for (const r of next.records) records.push(r);
    bytes += next.metered;
    last = next;
  }
  return last === first ? first : new LiveBatch(records, last.tail);
}

/** A round's deliveries of `b` in the stream's read metrics: one read op per subscriber that took it. */
export function countLive(m: StreamMeter, b: LiveBatch, deliveries: number): void {
  m.readOps += deliveries;
  m.readRecords += deliveries * b.records.length;
  m.readBytes += deliveries * b.metered;
}
