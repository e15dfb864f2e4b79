/**
 * Background work (protocol.md §7.7, §10.4, Appendix B): physical removal of trimmed and
 * expired records, delete-on-empty, and the cleanup of deleted streams and basins. It runs
 * every `intervalMs` and at once when triggered (a trim became durable, a delete). Reads
 * never depend on it: they filter trimmed and expired records themselves.
 *
 * On shared storage (several nodes on one PostgreSQL) the periodic sweep runs on one node at a
 * time (`Cluster.leadsSweep`): a sweep reads every stream's first batch head, and every node
 * doing so every period multiplied that load by the number of nodes. A node still sweeps at
 * once after a trim or delete made through it, and once at start. What the sweep decides it
 * does only by conditional changes (storage/seams.ts): a stream deleted when empty is deleted
 * only if nothing was appended since the sweep looked, through any node; a basin is removed
 * only if it is still the one the sweep saw being deleted.
 */
import type { BatchHead, StreamMeta, StreamStateRecord } from "../storage/types.js";
import { retentionMs } from "./stream-config.js";
import { meteredBatchSize } from "../../rules/records.js";
import { nowIso } from "./live-stream.js";
import type { LocalStream } from "./local-stream.js";
import type { Store } from "./store.js";
import { streamOf } from "../log.js";

const PAGE = 1000;
const DELETE_CHUNK = 1000;

export class Janitor {
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** A leadsSweep() question is in flight. */
  private asking = false;

  /**
   * @param deleteGraceMs a deleted stream or basin keeps its `deleting` state at least this
   *   long before cleanup (deletion is asynchronous, §2.3 B6; clients see 409 for a while).
   */
  constructor(
    private readonly store: Store,
    private readonly intervalMs: number,
    private readonly log: (msg: string) => void,
    private readonly deleteGraceMs = 1000,
  ) {
    store.onWork = () => void this.trigger();
  }

  start(): void {
    this.schedule(this.intervalMs);
    void this.trigger();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.running;
  }

  /** Starts a sweep now (or once the running one ends); resolves when the current one ends. */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = this.runOnce().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.trigger();
      }
    });
    this.running = run;
    return run;
  }

  private graceOver(deletedAt: string): boolean {
    const over = Date.parse(deletedAt) + this.deleteGraceMs <= Date.now();
    if (!over) this.retryLater();
    return over;
  }

  /** A deletion waiting out its grace period gets a sweep soon after it ends. */
  private retryLater(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = undefined;
        void this.trigger();
      },
      Math.min(this.intervalMs, 250),
    );
    this.retryTimer.unref();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.periodic();
      this.schedule(this.intervalMs);
    }, ms);
    this.timer.unref();
  }

  private async periodic(): Promise<void> {
    const backend = this.store.backend;
    if (backend.kind === "shared") {
      if (this.asking) return; // the last question has no answer yet (a database that hangs)
      this.asking = true;
      try {
        if (!(await backend.cluster.leadsSweep())) return;
      } finally {
        this.asking = false;
      }
    }
    await this.trigger();
  }

  private async runOnce(): Promise<void> {
    try {
      let after = "";
      for (;;) {
        const basins = await this.store.catalog.listBasins("", after, PAGE);
        for (const b of basins) {
          if (this.stopped) return;
          await this.sweepBasin(b.name, b.deletedAt !== null && this.graceOver(b.deletedAt) ? (b.id ?? 0) : undefined);
        }
        if (basins.length < PAGE) break;
        after = basins[basins.length - 1]!.name;
      }
    } catch (e) {
      this.log(`background sweep failed: ${(e as Error).message}`);
    }
  }

  /** `removeId`: the basin is being deleted, its grace is over: removed once empty (if still that basin). */
  private async sweepBasin(basin: string, removeId: number | undefined): Promise<void> {
    let after = "";
    for (;;) {
      const streams = await this.store.catalog.listStreams(basin, "", after, PAGE);
      for (const s of streams) {
        if (this.stopped) return;
        // One stream at a time, then other work: a sweep over hundreds of streams in one go
        // would hold every request of the node (lmdb reads are synchronous).
        await new Promise<void>((r) => setImmediate(r));
        if (s.deletedAt === null) await this.sweepStream(s);
        else if (this.graceOver(s.deletedAt)) await this.removeStream(s);
        else this.retryLater();
      }
      if (streams.length < PAGE) break;
      after = streams[streams.length - 1]!.name;
    }
    if (removeId !== undefined)
      await this.store.meta.run(() => this.store.catalog.change({ op: "removeBasin", name: basin, id: removeId }));
  }

  /** The stream's state: its live one on this node, or what is stored. */
  private async stateOf(meta: StreamMeta): Promise<StreamStateRecord | undefined> {
    const live = this.store.loaded(meta.basin, meta.name);
    if (live && live.id === meta.id && !this.store.shared) return live.known;
    return this.store.storedState(meta.id);
  }

  /** Removes trimmed and expired batches; deletes the stream when empty long enough. */
  private async sweepStream(meta: StreamMeta): Promise<void> {
    const log = this.store.log;
    const state = await this.stateOf(meta);
    if (!state) return;
    let cut = state.trimPoint;
    const ageMs = retentionMs(meta.config);
    const now = Date.now();
    // Batch headers only: most sweeps find nothing to do, and reading records to learn that
    // (on PostgreSQL each stream's first batch, whole, every sweep, on every node) was most of
    // a sweep's cost.
    if (ageMs !== undefined) {
      // Arrival times never decrease along a stream, so expired batches form a prefix. Most
      // sweeps find nothing expired: the first batch alone says so, and only then are more read.
      // The cut never goes past a batch this sweep has seen expire: pages of heads are read
      // until a live batch or the last stored one (it once jumped to the tail when 64 heads in
      // a row had expired, removing live records after them).
      const live = (b: BatchHead): boolean => b.arrival + ageMs > now || b.firstSeq >= state.nextSeq;
      for (let want = 1; ; want = 64) {
        const heads = await log.batchHeads(meta.id, cut, want);
        const first = heads.find(live);
        if (first) {
          cut = Math.max(cut, first.firstSeq);
          break;
        }
        if (heads.length === 0) break;
        const last = heads[heads.length - 1]!;
        cut = Math.max(cut, last.firstSeq + last.count);
        if (heads.length < want) break;
      }
    }
    const oldest = cut > 0 ? (await log.batchHeads(meta.id, 0, 1))[0] : undefined;
    if (oldest && oldest.firstSeq + oldest.count <= cut) {
      const removed = await this.bytesBelow(meta.id, cut);
      while ((await log.deleteBatchesBelow(meta.id, cut, DELETE_CHUNK)) === DELETE_CHUNK);
      if (removed > 0) this.store.meters.meter(meta.basin, meta.name, meta.id).storage -= removed;
    }
    const minAge = meta.config.delete_on_empty.min_age_secs;
    if (
      minAge > 0 &&
      (await log.batchHeads(meta.id, cut, 1)).length === 0 &&
      state.lastArrival + minAge * 1000 <= now
    ) {
      await this.deleteIfStillEmpty(meta, state, minAge);
    }
  }

  /** Metered bytes of the whole batches below `seq`: what deleteBatchesBelow will remove. */
  private async bytesBelow(id: number, seq: number): Promise<number> {
    let total = 0;
    let from = 0;
    for (;;) {
      const page = await this.store.log.readBatches(id, from, from === 0 ? 1 : 64);
      if (page.length === 0) return total;
      for (const b of page) {
        from = b.firstSeq + b.records.length;
        if (from > seq) return total;
        total += meteredBatchSize(b.records);
      }
    }
  }

  /**
   * Deletes a stream found empty, only if nothing was appended since `seen` was read: the
   * change is conditional on the stored tail and last arrival (through any node), and on this
   * node no append may be in flight.
   */
  private deleteIfStillEmpty(meta: StreamMeta, seen: StreamStateRecord, minAge: number): Promise<void> {
    return this.store.meta.run(async () => {
      const live = this.store.loaded(meta.basin, meta.name);
      if (live && live.id === meta.id && !this.store.shared && !(live as LocalStream).idle) return;
      if (seen.lastArrival + minAge * 1000 > Date.now()) return;
      const ifTail = { nextSeq: seen.nextSeq, lastArrival: seen.lastArrival };
      if (!this.store.shared) live?.markDeleting();
      if (
        !(await this.store.catalog.change({
          op: "deleteStream",
          basin: meta.basin,
          name: meta.name,
          id: meta.id,
          at: nowIso(),
          ifTail,
        }))
      )
        return;
      if (live && live.id === meta.id) live.markDeleting();
      this.log(`delete-on-empty: stream ${streamOf(meta.basin, meta.name)} deleted`);
      this.store.onWork();
    });
  }

  /** The background half of B6: wait for in-flight appends, drop the records, free the name. */
  private async removeStream(meta: StreamMeta): Promise<void> {
    const live = this.store.loaded(meta.basin, meta.name);
    if (live && live.id === meta.id) {
      live.markDeleting();
      await live.whenIdle();
    }
    while ((await this.store.log.deleteBatchesBelow(meta.id, Number.MAX_SAFE_INTEGER, DELETE_CHUNK)) === DELETE_CHUNK);
    await this.store.meta.run(async () => {
      if (!(await this.store.catalog.change({ op: "removeStream", basin: meta.basin, name: meta.name, id: meta.id })))
        return;
      if (live) this.store.forget(live);
      this.store.meters.dropped(meta.basin, meta.name, meta.id);
    });
  }
}
