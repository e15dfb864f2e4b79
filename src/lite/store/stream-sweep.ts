/**
 * What the sweep (janitor.ts) does to one live stream: carry out the trims due (due-trims.ts),
 * remove expired batches, and delete the stream when it has been empty long enough
 * (delete-on-empty), each only by conditional changes (storage/seams.ts).
 */

import { streamOf } from "../log.js";
import type { MarkedState, StreamRevision } from "../storage/seams.js";
import type { BatchHead, StreamMeta, StreamStateRecord } from "../storage/types.js";
import type { DueTrims } from "./due-trims.js";
import { nowIso } from "./live-stream.js";
import type { LocalStream } from "./local-stream.js";
import type { Store } from "./store.js";
import { retentionMs } from "./stream-config.js";

/** Batches removed per write. */
export const DELETE_CHUNK = 1000;

export class StreamSweep {
  constructor(
    private readonly store: Store,
    private readonly trims: DueTrims,
    private readonly log: (msg: string) => void,
  ) {}

  /** The stream's state and removal mark: its live ones on this node, or what is stored. */
  private async stateOf(meta: StreamMeta): Promise<MarkedState | undefined> {
    const live = this.store.loaded(meta.basin, meta.name);
    if (live && live.id === meta.id && !this.store.shared) return { ...live.known, removedBelow: live.removedBelow };
    return this.store.storedState(meta.id);
  }

  /**
   * Carries out the trims due, removes expired batches; deletes the stream when empty long
   * enough. What the sweep decides from the stream's config (retention, delete-on-empty) it
   * does only while the stream is still at the revision it judged (`meta.rev`), checked by the
   * write that acts: a PATCH acknowledged before that write wins, whenever this pass listed it.
   */
  async sweep(meta: StreamMeta): Promise<void> {
    const state = await this.stateOf(meta);
    if (!state) return;
    const now = this.store.judgingNow();
    const judged: StreamRevision = { basin: meta.basin, name: meta.name, rev: meta.rev ?? 0 };
    const due = this.trims.due(meta.id, state.trimPoint, state.removedBelow);
    await this.removeBelow(meta, due, state.removedBelow);
    if (now === undefined) return; // no ages judged while the clock is unsure (store.ts)
    const expired = await this.expiredBelow(meta, state, due, now);
    if (expired > due) await this.removeBelow(meta, expired, due, judged);
    const minAge = meta.config.delete_on_empty.min_age_secs;
    if (
      minAge > 0 &&
      (await this.store.log.batchHeads(meta.id, Math.max(due, expired), 1)).length === 0 &&
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
  private async expiredBelow(meta: StreamMeta, state: StreamStateRecord, from: number, now: number): Promise<number> {
    const ageMs = retentionMs(meta.config);
    if (ageMs === undefined) return 0;
    // Arrival times never decrease along a stream, so expired batches form a prefix. Most
    // sweeps find nothing expired: the first batch alone says so, and only then are more read.
    // The cut never goes past a batch this sweep has seen expire: pages of heads are read
    // until a live batch or the last stored one (it once jumped to the tail when 64 heads in
    // a row had expired, removing live records after them).
    const live = (b: BatchHead): boolean => b.arrival + ageMs > now || b.firstSeq >= state.nextSeq;
    let cut = from;
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

  /**
   * Carries out a removal up to `seq` (storage/seams.ts: the removal mark rises to it, the whole
   * batches below it go), when the mark is below it (`removed`) or batches below it remain;
   * with `ifRev`, only while the stream is at that revision.
   */
  private async removeBelow(meta: StreamMeta, seq: number, removed: number, ifRev?: StreamRevision): Promise<void> {
    const log = this.store.log;
    if (seq <= removed) {
      const oldest = seq > 0 ? (await log.batchHeads(meta.id, 0, 1))[0] : undefined;
      if (!oldest || oldest.firstSeq + oldest.count > seq) return;
    }
    let metered = 0;
    for (;;) {
      const gone = await log.deleteBatchesBelow(meta.id, seq, DELETE_CHUNK, ifRev);
      metered += gone.metered;
      if (gone.batches < DELETE_CHUNK) break;
    }
    if (metered > 0) this.store.meters.meter(meta.basin, meta.name, meta.id).storage -= metered;
    // A trim carried out (no condition): this node's readers skip below it from now on.
    const live = this.store.loaded(meta.basin, meta.name);
    if (!ifRev && live?.id === meta.id) live.noteRemoved(seq);
  }

  /**
   * Deletes a stream found empty, only if nothing was appended since `seen` was read and its
   * config is still the one judged: the change is conditional on the stored tail, last arrival
   * and revision (through any node), and on this node no append may be in flight.
   */
  private deleteIfStillEmpty(meta: StreamMeta, seen: StreamStateRecord, minAge: number): Promise<void> {
    return this.store.meta.stream(meta.basin, meta.name, async () => {
      const loaded = this.store.loaded(meta.basin, meta.name);
      const live = loaded && loaded.id === meta.id ? loaded : undefined;
      if (seen.lastArrival + minAge * 1000 > this.store.now()) return;
      if (!this.store.shared && live) {
        // This node is the only writer: nothing may be in flight, nothing may have been
        // appended since `seen` (appends do not wait for the lock: the change would be refused
        // and the stream left sealed), and appends are refused from here on. The stream's other
        // metadata changes wait for this one (its lock), so the revision read now is the one the
        // change finds.
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
}
