/**
 * The record log on lmdb: one value per appended batch, keyed by (stream id, first seq num),
 * written in the same transaction as the stream state it produced, and only if the stored
 * tail is where the batch starts (lmdb `ifVersion` on the tail): when a commit fails, every
 * batch sequenced behind it is skipped instead of landing beyond a hole. One value per batch
 * was measured 3× faster than one key per record (docs/design/performance.md, "Durable storage").
 */
import { SvcError } from "../../../errors.js";
import { batchHeader, decodeBatch, encodeBatch, meteredOfValue } from "../batch-codec.js";
import type { LocalLog, Removed, StreamRevision } from "../seams.js";
import { WRITE_OVERHEAD } from "../space-reserve.js";
import type { BatchHead, StoredBatch, StreamStateRecord } from "../types.js";
import type { LmdbEnv } from "./env.js";
import { batchKey, idKey, readU64, streamKey, tsKey } from "./keys.js";

const ONE = Buffer.from([1]);
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export class LmdbLog implements LocalLog {
  constructor(private readonly e: LmdbEnv) {}

  getState(id: number): StreamStateRecord | undefined {
    return this.e.tails.get(id);
  }

  removedBelow(id: number): number {
    return this.e.marks.get(id) ?? 0;
  }

  appendBatch(id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void> {
    const value = encodeBatch(batch);
    const e = this.e;
    const write = (): Promise<boolean> =>
      e.tails.ifVersion(id, batch.firstSeq, () => {
        e.batches.put(batchKey(id, batch.firstSeq), value);
        e.tsidx.put(tsKey(id, batch.lastTimestamp, batch.firstSeq), ONE);
        e.tails.put(id, state, state.nextSeq);
      });
    return this.e
      .write(WRITE_OVERHEAD + Math.ceil(value.length * 1.25), write, (written) => {
        if (written !== true)
          throw new SvcError({
            code: "storage",
            status: 500,
            origin: "server",
            retryable: true,
            message: `batch at seq ${batch.firstSeq} not written: the stored tail is elsewhere (an earlier write failed)`,
          });
      })
      .then(() => undefined);
  }

  readBatches(id: number, fromSeq: number, maxBatches: number): StoredBatch[] {
    const out: StoredBatch[] = [];
    const held = this.holding(id, fromSeq);
    if (held) out.push(decodeBatch(held.first, this.e.batches.getBinary(held.key)!));
    if (out.length >= maxBatches) return out;
    for (const { key, value } of this.e.batches.getRange({
      start: batchKey(id, fromSeq),
      end: idKey(id + 1),
      limit: maxBatches - out.length,
    })) {
      out.push(decodeBatch(readU64(key, 4), value));
    }
    return out;
  }

  /** readBatches without the values: keys and headers only, nothing copied. */
  batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]> {
    const out: BatchHead[] = [];
    const held = this.holding(id, fromSeq);
    if (held) out.push({ firstSeq: held.first, count: held.head.count, arrival: held.head.arrival });
    if (out.length < maxBatches) {
      for (const key of this.e.batches.getKeys({
        start: batchKey(id, fromSeq),
        end: idKey(id + 1),
        limit: maxBatches - out.length,
      })) {
        const head = this.headerAt(key);
        out.push({ firstSeq: readU64(key, 4), count: head.count, arrival: head.arrival });
      }
    }
    return Promise.resolve(out);
  }

  /**
   * The batch that starts before `fromSeq` and holds it, if any, found by key and header alone
   * (a value is a copy of up to a MiB, and a sequential catch-up starts every read exactly at a
   * batch). A batch starting at `fromSeq` is left to the forward scan.
   */
  private holding(
    id: number,
    fromSeq: number,
  ): { key: Buffer; first: number; head: ReturnType<typeof batchHeader> } | undefined {
    for (const key of this.e.batches.getKeys({
      start: batchKey(id, fromSeq),
      end: idKey(id),
      reverse: true,
      limit: 1,
    })) {
      const first = readU64(key, 4);
      if (first === fromSeq) return undefined;
      const head = this.headerAt(key);
      return first + head.count > fromSeq ? { key, first, head } : undefined;
    }
    return undefined;
  }

  /** The header of the batch stored under `key`, read without copying its value. */
  private headerAt(key: Buffer): ReturnType<typeof batchHeader> {
    const value = this.e.batches.getBinaryFast(key);
    if (value === undefined) throw new Error("stored batch vanished while being read");
    return batchHeader(value);
  }

  findTimestamp(id: number, timestamp: number): number | undefined {
    for (const { key } of this.e.tsidx.getRange({ start: tsKey(id, timestamp, 0), end: idKey(id + 1), limit: 1 })) {
      return readU64(key, 12);
    }
    return undefined;
  }

  lastBatch(id: number): StoredBatch | undefined {
    for (const { key, value } of this.e.batches.getRange({
      start: batchKey(id, MAX_SEQ),
      end: idKey(id),
      reverse: true,
      limit: 1,
    })) {
      return decodeBatch(readU64(key, 4), value);
    }
    return undefined;
  }

  /**
   * With `ifRev`, the stream's stored revision is checked inside the write transaction that
   * removes (this process is the only writer, and writes are serialised through `e.write`).
   */
  async deleteBatchesBelow(id: number, seq: number, max: number, ifRev?: StreamRevision): Promise<Removed> {
    const e = this.e;
    const end = batchKey(id, Math.min(seq, MAX_SEQ));
    let n = 0;
    for (const key of e.batches.getKeys({ start: batchKey(id, 0), end, limit: max })) {
      if (readU64(key, 4) + this.headerAt(key).count > seq) break;
      n++;
    }
    const mark = Math.min(seq, MAX_SEQ);
    if (n === 0 && this.removedBelow(id) >= mark) return { batches: 0, metered: 0 };
    const judged = (): boolean => {
      const meta = ifRev && e.streams.get(streamKey(ifRev.basin, ifRev.name));
      return (
        !ifRev || (meta !== undefined && meta.id === id && meta.deletedAt === null && (meta.rev ?? 0) === ifRev.rev)
      );
    };
    // Removal needs no flush before anyone is told: nothing is acknowledged on it, and a lost
    // removal is redone by the next sweep. It still goes through the write gate.
    return e.write(WRITE_OVERHEAD, () =>
      e.env.transaction((): Removed => {
        const removed = { batches: 0, metered: 0 };
        if (!judged()) return removed;
        if ((e.marks.get(id) ?? 0) < mark) e.marks.put(id, mark);
        if (n === 0) return removed; // the mark only: no whole batch lies below it
        for (const key of e.batches.getKeys({ start: batchKey(id, 0), end, limit: n })) {
          const value = e.batches.getBinaryFast(key)!;
          e.tsidx.remove(tsKey(id, batchHeader(value).lastTimestamp, readU64(key, 4)));
          removed.metered += meteredOfValue(value);
          removed.batches++;
          e.batches.remove(key);
        }
        return removed;
      }),
    );
  }
}
