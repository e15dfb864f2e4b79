/**
 * Stored batches kept on a node of a shared backend: a batch never changes once it landed, so a
 * node may serve it again without asking the database. A batch below the stream's trim point
 * as this node knows it (which includes where the sweep's removals end: pg/log.ts) is dropped
 * when that point is learnt (shared-stream.ts observe), and reads skip such records anyway.
 * Bounded by bytes, least recently used first out.
 */
import { type StoredBatch, storedCount } from "../storage/types.js";

interface Slot {
  id: number;
  batch: StoredBatch;
  bytes: number;
}

function sizeOf(b: StoredBatch): number {
  if (b.wire) return b.wire.slice(0, b.wire.count).length + 64;
  let n = 64;
  for (const r of b.records) n += r.body.length + 32;
  return n;
}

export class BatchCache {
  /** Per stream: its cached batches by first seq num, and those seq nums in order. */
  private readonly streams = new Map<number, { byFirst: Map<number, Slot>; firsts: number[] }>();
  /** Insertion order is use order: the first is the least recently used. */
  private readonly lru = new Set<Slot>();
  private bytes = 0;
  /** Bumped by `clear`: batches read before it are not put back (they may come from a database since lost). */
  generation = 0;

  constructor(private readonly maxBytes: number) {}

  /** Cached batches from the one holding `fromSeq`, as long as they follow each other; [] if none. */
  get(id: number, fromSeq: number, maxBatches: number): StoredBatch[] {
    const s = this.streams.get(id);
    if (!s) return [];
    let i = lastAtOrBelow(s.firsts, fromSeq);
    if (i < 0) return [];
    const out: StoredBatch[] = [];
    let slot = s.byFirst.get(s.firsts[i]!)!;
    if (slot.batch.firstSeq + storedCount(slot.batch) <= fromSeq) return [];
    for (;;) {
      this.touch(slot);
      out.push(slot.batch);
      const end = slot.batch.firstSeq + storedCount(slot.batch);
      i++;
      if (out.length >= maxBatches || i >= s.firsts.length || s.firsts[i] !== end) return out;
      slot = s.byFirst.get(end)!;
    }
  }

  /** Keeps `batches` (of stream `id`), unless they were read before the cache was cleared (`readIn`). */
  put(id: number, batches: StoredBatch[], readIn = this.generation): void {
    if (this.maxBytes <= 0 || readIn !== this.generation) return;
    let s = this.streams.get(id);
    if (!s) this.streams.set(id, (s = { byFirst: new Map(), firsts: [] }));
    for (const batch of batches) {
      if (s.byFirst.has(batch.firstSeq)) continue;
      const slot: Slot = { id, batch, bytes: sizeOf(batch) };
      s.byFirst.set(batch.firstSeq, slot);
      const at = lastAtOrBelow(s.firsts, batch.firstSeq) + 1;
      s.firsts.splice(at, 0, batch.firstSeq);
      this.lru.add(slot);
      this.bytes += slot.bytes;
    }
    while (this.bytes > this.maxBytes) {
      const oldest = this.lru.values().next().value as Slot | undefined;
      if (!oldest) break;
      this.evict(oldest);
    }
  }

  /** Forgets a stream's batches that lie wholly below `seq` (trimmed or removed). */
  dropBelow(id: number, seq: number): void {
    const s = this.streams.get(id);
    if (!s) return;
    for (const first of s.firsts.slice()) {
      const slot = s.byFirst.get(first)!;
      if (first + storedCount(slot.batch) > seq) break;
      this.evict(slot);
    }
  }

  /** Forgets everything, and whatever reads under way bring back. */
  clear(): void {
    this.generation++;
    for (const slot of [...this.lru]) this.evict(slot);
  }

  /** Forgets a stream (deleted). */
  drop(id: number): void {
    const s = this.streams.get(id);
    if (!s) return;
    for (const slot of s.byFirst.values()) this.evict(slot);
  }

  private touch(slot: Slot): void {
    this.lru.delete(slot);
    this.lru.add(slot);
  }

  private evict(slot: Slot): void {
    this.lru.delete(slot);
    this.bytes -= slot.bytes;
    const s = this.streams.get(slot.id);
    if (!s) return;
    s.byFirst.delete(slot.batch.firstSeq);
    const at = lastAtOrBelow(s.firsts, slot.batch.firstSeq);
    if (at >= 0 && s.firsts[at] === slot.batch.firstSeq) s.firsts.splice(at, 1);
    if (s.firsts.length === 0) this.streams.delete(slot.id);
  }
}

/** Index of the last element ≤ `x` in an ascending array, or -1. */
function lastAtOrBelow(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! <= x) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
