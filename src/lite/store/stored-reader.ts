/**
 * The seam under the read pipeline (read-feed.ts): what one read sees of a stream's stored
 * records, one run at a time, removals, expiry and gaps already resolved, bounded by the tail now.
 * Each kind of live stream makes its own: a local stream's (here) knows its tail exactly, so it
 * only skips what was removed or expired; a shared stream's (shared-reader.ts) asks the database
 * for the tail where it must, and turns the gaps the sweep leaves meanwhile into restarts.
 *
 * A reader keeps the stored batches it read last: a read that goes on inside one (its output
 * batch was full) takes the rest without reading storage again.
 */
import { LIMITS } from "../../types.js";
import type { Answer, BackendKind } from "../storage/answers.js";
import { type StoredBatch, type StreamMeta, type StreamStateRecord, storedCount } from "../storage/types.js";
import { wallClock } from "../storage/wall-clock.js";
import { storedBatchesToRead } from "./catch-up.js";
import { retentionMs } from "./stream-config.js";

export type StoredStep =
  /** Records [from, to) of `batch` (from ≥ the position asked: records before it are gone). */
  | { kind: "run"; batch: StoredBatch; from: number; to: number }
  /**
   * A prefix was removed while the read went on (another node's trim): records gathered since
   * the read's output batch began may lie below it. Drop them and go on at `from`.
   */
  | { kind: "restart"; from: number }
  /** Nothing stored from the position up to the tail now, `at` (≥ the position): caught up. */
  | { kind: "end"; at: number };

/** How much the reader's output batch still takes (how many stored batches to read at once). */
export interface Room {
  records: number;
  bytes: number;
}

/** A local stream's reader answers at once, a shared one's with a promise (storage/answers.ts). */
export interface StoredReader<K extends BackendKind = BackendKind> {
  next(position: number, room: Room): Answer<K, StoredStep>;
}

/** What a reader reads of its stream (a LiveStream of the same kind). */
export interface ReaderSource<K extends BackendKind> {
  readonly meta: StreamMeta;
  /** A state whose every record below `nextSeq` is stored (its trim point may not be carried out yet). */
  readonly known: StreamStateRecord;
  /**
   * The removal mark as known here: the sweep carried out trims (and removed expired records)
   * up to it, so nothing below it is served. Records below a trim point above it are still
   * served until the sweep carries that trim out (protocol.md §7.7).
   */
  readonly removedBelow: number;
  readBatches(fromSeq: number, maxBatches: number): Answer<K, StoredBatch[]>;
}

/** Whether a stored batch has expired under the stream's retention now. */
export function expiredAt(meta: StreamMeta, now: number): (b: StoredBatch) => boolean {
  const ageMs = retentionMs(meta.config);
  return ageMs === undefined ? () => false : (b) => b.arrival + ageMs <= now;
}

/** How many batches to read next after `last` (1 before any was read). */
export function batchesToRead(last: StoredBatch | undefined, room: Room): number {
  if (!last) return 1;
  return storedBatchesToRead(
    last,
    Math.min(LIMITS.maxBatchRecords, room.records),
    Math.min(LIMITS.maxBatchBytes, room.bytes),
  );
}

/** The stored batches read last, from the one holding a position. */
export class Page {
  private batches: StoredBatch[] = [];
  private at = 0;
  /** The last batch read from storage (how many to read next is judged by it). */
  last: StoredBatch | undefined;

  /** The buffered batch holding `position` or the first after it; undefined when none is buffered. */
  find(position: number): StoredBatch | undefined {
    while (this.at < this.batches.length) {
      const b = this.batches[this.at]!;
      if (b.firstSeq + storedCount(b) > position) return b;
      this.at++;
    }
    return undefined;
  }

  fill(batches: StoredBatch[]): void {
    this.batches = batches;
    this.at = 0;
    if (batches.length > 0) this.last = batches[batches.length - 1];
  }

  /** Forgets what is buffered (it may hold records removed since). */
  clear(): void {
    this.fill([]);
  }
}

/**
 * A local stream's stored records: this process is the only writer, so `known` is the stream's
 * state itself and the tail is exact. What the sweep removed (trimmed, expired) leaves gaps that
 * are simply stepped over; records below the removal mark that share a batch with later ones
 * are skipped.
 */
export class LocalReader implements StoredReader<"local"> {
  private readonly page = new Page();

  /** @param now the store's clock, by which retention expires records (wallClock, or a test's) */
  constructor(
    private readonly stream: ReaderSource<"local">,
    private readonly now: () => number = wallClock,
  ) {}

  next(position: number, room: Room): StoredStep {
    const known = this.stream.known;
    const tail = known.nextSeq;
    const expired = expiredAt(this.stream.meta, this.now());
    let at = Math.max(position, Math.min(this.stream.removedBelow, tail));
    for (;;) {
      if (at >= tail) return { kind: "end", at: Math.max(at, tail) };
      let b = this.page.find(at);
      if (!b) {
        this.page.fill(this.stream.readBatches(at, batchesToRead(this.page.last, room)));
        b = this.page.find(at);
        if (!b) return { kind: "end", at: tail };
      }
      const end = b.firstSeq + storedCount(b);
      if (b.firstSeq >= tail) return { kind: "end", at: tail };
      if (expired(b)) {
        at = end;
        continue;
      }
      return { kind: "run", batch: b, from: Math.max(at, b.firstSeq), to: Math.min(end, tail) };
    }
  }
}
