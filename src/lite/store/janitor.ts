/**
 * Background work (protocol.md §7.7, §10.4, Appendix B): carrying out trims, removal of
 * expired records, delete-on-empty, and the cleanup of deleted streams and basins. It runs
 * every `intervalMs` and at once when triggered (a trim became durable, a delete). Reads
 * filter expired records themselves; trimmed records are read until the sweep carries the
 * trim out, one period after it first saw the trim point (due-trims.ts): it then raises the
 * stream's removal mark to the trim point and removes the batches below, in one write.
 *
 * On shared storage (several nodes on one PostgreSQL) the periodic sweep runs on one node at a
 * time, the holder of the sweep's lease (`Cluster.leadsSweep`, which never waits): a sweep
 * reads every stream's first batch head, and every node doing so every period multiplied that
 * load by the number of nodes. A periodic pass stops where it is once the lease lapses (the
 * node could not renew it in time: another may take it over). A node still sweeps at once
 * after a trim or delete made through it, and once at start. What the sweep decides it does
 * only by conditional changes (storage/seams.ts), checked by the write that acts:
 * - a trim, once due, is carried out unconditionally (a trim is never undone);
 * - expired records only while the stream is at the revision whose retention expired them;
 * - a stream empty long enough is deleted only if nothing was appended since the sweep looked,
 *   through any node, and its config is still the one judged (a PATCH turning
 *   delete-on-empty off, acknowledged before that write, keeps the stream);
 * - a basin is removed only if it is still the one the sweep saw being deleted (a basin being
 *   deleted cannot be reconfigured).
 */
import type { StreamMeta } from "../storage/types.js";
import { DueTrims } from "./due-trims.js";
import type { Store } from "./store.js";
import { DELETE_CHUNK, StreamSweep } from "./stream-sweep.js";

const PAGE = 1000;

export class Janitor {
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** A pass when the next trim seen is due. */
  private dueTimer: NodeJS.Timeout | undefined;
  private readonly trims: DueTrims;
  /** What a pass does to each live stream. */
  private readonly streams: StreamSweep;
  private running: Promise<void> | undefined;
  private again = false;
  private halted = false;
  /** The running pass is the periodic one of the lease's holder: it stops once the lease lapses. */
  private leaderPass = false;

  /**
   * @param deleteGraceMs a deleted stream or basin keeps its `deleting` state at least this
   *   long before cleanup (deletion is asynchronous, §2.3 B6; clients see 409 for a while).
   * @param clock when trims are due, in ms (tests move it instead of waiting)
   */
  constructor(
    private readonly store: Store,
    private readonly intervalMs: number,
    private readonly log: (msg: string) => void,
    private readonly deleteGraceMs = 1000,
    clock: () => number = Date.now,
  ) {
    this.trims = new DueTrims(intervalMs, clock);
    this.streams = new StreamSweep(store, this.trims, log);
    store.onWork = () => void this.trigger();
  }

  start(): void {
    this.schedule(this.intervalMs);
    void this.trigger();
  }

  /** Whether the running pass must stop: lite is stopping, or a leader's pass lost its lease. */
  private get stopped(): boolean {
    if (this.halted) return true;
    const b = this.store.backend;
    return this.leaderPass && b.kind === "shared" && !b.cluster.leadsSweep();
  }

  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.dueTimer) clearTimeout(this.dueTimer);
    await this.running;
  }

  /**
   * Starts a sweep now (or once the running one ends); resolves when the current one ends.
   * `asLeader`: the periodic pass of the lease's holder (a pass asked for meanwhile is not).
   */
  trigger(asLeader = false): Promise<void> {
    if (this.halted) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.leaderPass = asLeader;
    const run = this.runOnce().finally(() => {
      this.running = undefined;
      this.leaderPass = false;
      if (this.again) {
        this.again = false;
        void this.trigger();
      }
    });
    this.running = run;
    return run;
  }

  /** Runs a whole pass that starts after this call, and resolves when it ends. */
  async sweepNow(): Promise<void> {
    await this.trigger();
    await this.running;
  }

  /** A pass when the next waiting trim is due (this node may not run the periodic sweep). */
  private scheduleDue(): void {
    const ms = this.trims.nextDueIn();
    if (this.halted || this.dueTimer || ms === undefined) return;
    this.dueTimer = setTimeout(() => {
      this.dueTimer = undefined;
      void this.trigger();
    }, ms + 1);
    this.dueTimer.unref();
  }

  private graceOver(deletedAt: string): boolean {
    const over = Date.parse(deletedAt) + this.deleteGraceMs <= this.store.now();
    if (!over) this.retryLater();
    return over;
  }

  /** A deletion waiting out its grace period gets a sweep soon after it ends. */
  private retryLater(): void {
    if (this.halted || this.retryTimer) return;
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
    if (this.halted) return;
    this.timer = setTimeout(() => {
      void this.periodic();
      this.schedule(this.intervalMs);
    }, ms);
    this.timer.unref();
  }

  private async periodic(): Promise<void> {
    const backend = this.store.backend;
    if (backend.kind === "shared" && !backend.cluster.leadsSweep()) return;
    await this.trigger(backend.kind === "shared");
  }

  private async runOnce(): Promise<void> {
    const seen = new Set<number>();
    try {
      let after = "";
      for (;;) {
        const basins = await this.store.catalog.listBasins("", after, PAGE);
        for (const b of basins) {
          if (this.stopped) return;
          const removeId = b.deletedAt !== null && this.graceOver(b.deletedAt) ? (b.id ?? 0) : undefined;
          await this.sweepBasin(b.name, removeId, seen);
        }
        if (basins.length < PAGE) break;
        after = basins[basins.length - 1]!.name;
      }
      if (!this.stopped) this.trims.keepOnly(seen);
    } catch (e) {
      this.log(`background sweep failed: ${(e as Error).message}`);
    } finally {
      this.scheduleDue();
    }
  }

  /**
   * `removeId`: the basin is being deleted, its grace is over: removed once empty (if still that
   * basin). `seen`: the ids of the streams swept.
   */
  private async sweepBasin(basin: string, removeId: number | undefined, seen: Set<number>): Promise<void> {
    let after = "";
    for (;;) {
      const streams = await this.store.catalog.listStreams(basin, "", after, PAGE);
      for (const s of streams) {
        if (this.stopped) return;
        // One stream at a time, then other work: a sweep over hundreds of streams in one go
        // would hold every request of the node (lmdb reads are synchronous).
        await new Promise<void>((r) => setImmediate(r));
        seen.add(s.id);
        if (s.deletedAt === null) await this.streams.sweep(s);
        else if (this.graceOver(s.deletedAt)) await this.removeStream(s);
        else this.retryLater();
      }
      if (streams.length < PAGE) break;
      after = streams[streams.length - 1]!.name;
    }
    if (removeId !== undefined)
      await this.store.meta.basin(basin, () =>
        this.store.catalog.change({ op: "removeBasin", name: basin, id: removeId }),
      );
  }

  /** The background half of B6: wait for in-flight appends, drop the records, free the name. */
  private async removeStream(meta: StreamMeta): Promise<void> {
    const live = this.store.loaded(meta.basin, meta.name);
    if (live && live.id === meta.id) {
      live.markDeleting();
      await live.whenIdle();
    }
    while (
      (await this.store.log.deleteBatchesBelow(meta.id, Number.MAX_SAFE_INTEGER, DELETE_CHUNK)).batches === DELETE_CHUNK
    );
    await this.store.meta.stream(meta.basin, meta.name, async () => {
      if (!(await this.store.catalog.change({ op: "removeStream", basin: meta.basin, name: meta.name, id: meta.id })))
        return;
      if (live) this.store.forget(live);
      this.store.meters.dropped(meta.basin, meta.name, meta.id);
    });
  }
}
