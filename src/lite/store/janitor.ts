/**
 * Background work (protocol.md §7.7, §10.4, Appendix B): physical removal of trimmed and
 * expired records, delete-on-empty, and the cleanup of deleted streams and basins. It runs
 * every `intervalMs` and at once when triggered (a trim became durable, a delete). Reads
 * never depend on it: they filter trimmed and expired records themselves.
 *
 * On shared storage (several nodes on one PostgreSQL) the periodic sweep runs on one node at a
 * time, the holder of the sweep's lease (`Cluster.leadsSweep`, which never waits): a sweep
 * reads every stream's first batch head, and every node doing so every period multiplied that
 * load by the number of nodes. A periodic pass stops where it is once the lease lapses (the
 * node could not renew it in time: another may take it over). A node still sweeps at once
 * after a trim or delete made through it, and once at start. What the sweep decides it does
 * only by conditional changes (storage/seams.ts), checked by the write that acts:
 * - trimmed records are removed unconditionally (a trim is never undone);
 * - expired records only while the stream is at the revision whose retention expired them;
 * - a stream empty long enough is deleted only if nothing was appended since the sweep looked,
 *   through any node, and its config is still the one judged (a PATCH turning
 *   delete-on-empty off, acknowledged before that write, keeps the stream);
 * - a basin is removed only if it is still the one the sweep saw being deleted (a basin being
 *   deleted cannot be reconfigured).
 */
import type { StreamRevision } from "../storage/seams.js";
import type { BatchHead, StreamMeta, StreamStateRecord } from "../storage/types.js";
import { retentionMs } from "./stream-config.js";
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
  private halted = false;
  /** The running pass is the periodic one of the lease's holder: it stops once the lease lapses. */
  private leaderPass = false;

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

  /**
   * Removes trimmed and expired batches; deletes the stream when empty long enough. What the
   * sweep decides from the stream's config (retention, delete-on-empty) it does only while the
   * stream is still at the revision it judged (`meta.rev`), checked by the write that acts: a
   * PATCH acknowledged before that write wins, whenever this pass listed the stream.
   */
  private async sweepStream(meta: StreamMeta): Promise<void> {
    const state = await this.stateOf(meta);
    if (!state) return;
    const now = this.store.judgingNow();
    const judged: StreamRevision = { basin: meta.basin, name: meta.name, rev: meta.rev ?? 0 };
    await this.removeBelow(meta, state.trimPoint);
    if (now === undefined) return; // no ages judged while the clock is unsure (store.ts)
    const expired = await this.expiredBelow(meta, state, now);
    if (expired > state.trimPoint) await this.removeBelow(meta, expired, judged);
    const minAge = meta.config.delete_on_empty.min_age_secs;
    if (
      minAge > 0 &&
      (await this.store.log.batchHeads(meta.id, Math.max(state.trimPoint, expired), 1)).length === 0 &&
      state.lastArrival + minAge * 1000 <= now
    ) {
      await this.deleteIfStillEmpty(meta, state, minAge);
    }
  }

  /**
   * Where the records expired by the stream's retention end (0: none expired). Batch headers
   * only: most sweeps find nothing to do, and reading records to learn that (on PostgreSQL
   * each stream's first batch, whole, every sweep, on every node) was most of a sweep's cost.
   */
  private async expiredBelow(meta: StreamMeta, state: StreamStateRecord, now: number): Promise<number> {
    const ageMs = retentionMs(meta.config);
    if (ageMs === undefined) return 0;
    // Arrival times never decrease along a stream, so expired batches form a prefix. Most
    // sweeps find nothing expired: the first batch alone says so, and only then are more read.
    // The cut never goes past a batch this sweep has seen expire: pages of heads are read
    // until a live batch or the last stored one (it once jumped to the tail when 64 heads in
    // a row had expired, removing live records after them).
    const live = (b: BatchHead): boolean => b.arrival + ageMs > now || b.firstSeq >= state.nextSeq;
    let cut = state.trimPoint;
    for (let want = 1; ; want = 64) {
      const heads = await this.store.log.batchHeads(meta.id, cut, want);
      const first = heads.find(live);
      if (first) return Math.max(cut, first.firstSeq);
      if (heads.length === 0) return cut;
      const last = heads[heads.length - 1]!;
      cut = Math.max(cut, last.firstSeq + last.count);
      if (heads.length < want) return cut;
    }
  }

  /** Removes the whole batches below `seq` (with `ifRev`, only while the stream is at that revision). */
  private async removeBelow(meta: StreamMeta, seq: number, ifRev?: StreamRevision): Promise<void> {
    const log = this.store.log;
    const oldest = seq > 0 ? (await log.batchHeads(meta.id, 0, 1))[0] : undefined;
    if (!oldest || oldest.firstSeq + oldest.count > seq) return;
    let metered = 0;
    for (;;) {
      const removed = await log.deleteBatchesBelow(meta.id, seq, DELETE_CHUNK, ifRev);
      metered += removed.metered;
      if (removed.batches < DELETE_CHUNK) break;
    }
    if (metered > 0) this.store.meters.meter(meta.basin, meta.name, meta.id).storage -= metered;
  }

  /**
   * Deletes a stream found empty, only if nothing was appended since `seen` was read and its
   * config is still the one judged: the change is conditional on the stored tail, last arrival
   * and revision (through any node), and on this node no append may be in flight.
   */
  private deleteIfStillEmpty(meta: StreamMeta, seen: StreamStateRecord, minAge: number): Promise<void> {
    return this.store.meta.run(async () => {
      const loaded = this.store.loaded(meta.basin, meta.name);
      const live = loaded && loaded.id === meta.id ? loaded : undefined;
      if (seen.lastArrival + minAge * 1000 > this.store.now()) return;
      if (!this.store.shared && live) {
        // This node is the only writer: nothing may be in flight, nothing may have been
        // appended since `seen` (appends do not wait for the mutex: the change would be refused
        // and the stream left sealed), and appends are refused from here on. Metadata changes
        // wait for this one (the mutex), so the revision read now is the one the change finds.
        const rev = (await this.store.catalog.getStream(meta.basin, meta.name))?.rev ?? 0;
        const current = live.known;
        if (!(live as LocalStream).idle || rev !== (meta.rev ?? 0)) return;
        if (current.nextSeq !== seen.nextSeq || current.lastArrival !== seen.lastArrival) return;
        live.markDeleting();
      }
      const ifTail = { nextSeq: seen.nextSeq, lastArrival: seen.lastArrival };
      const at = nowIso(this.store.now());
      const change = {
        op: "deleteStream",
        basin: meta.basin,
        name: meta.name,
        id: meta.id,
        at,
        ifTail,
        ifRev: meta.rev ?? 0,
      } as const;
      if (!(await this.store.catalog.change(change))) return;
      live?.markDeleting();
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
    while (
      (await this.store.log.deleteBatchesBelow(meta.id, Number.MAX_SAFE_INTEGER, DELETE_CHUNK)).batches === DELETE_CHUNK
    );
    await this.store.meta.run(async () => {
      if (!(await this.store.catalog.change({ op: "removeStream", basin: meta.basin, name: meta.name, id: meta.id })))
        return;
      if (live) this.store.forget(live);
      this.store.meters.dropped(meta.basin, meta.name, meta.id);
    });
  }
}
