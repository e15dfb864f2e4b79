/**
 * The store: the one owner of basins, streams and their live states. Metadata changes run
 * one at a time under a mutex, each waiting for its own fsync before answering; data-plane
 * appends go straight to the stream's StreamState once it is loaded.
 */
import { serverError } from "../../errors.js";
import type { Storage, StorageListener, StreamMeta, StreamStateRecord } from "../storage/storage.js";
import { Mutex } from "./mutex.js";
import { resolveStreamConfig } from "./stream-config.js";
import { StreamState } from "./stream-state.js";
import { TEST_FAULT } from "../test-fault.js";
import { NO_METERS, type Meters } from "../metrics/meter.js";

export type AutoCreate = "append" | "read" | "none";

export function streamKey(basin: string, name: string): string {
  return `${basin}\u0000${name}`;
}

export function nowIso(ms = Date.now()): string {
  return new Date(ms).toISOString();
}

export function initialState(createdMs: number): StreamStateRecord {
  return { nextSeq: 0, lastTimestamp: 0, fencingToken: "", trimPoint: 0, lastArrival: createdMs };
}

export class Store {
  readonly meta = new Mutex();
  private states = new Map<string, StreamState>();
  /** Called when background work (trim, deletion) may be pending. */
  onWork: () => void = () => {};
  /** Where streams count their appends, reads and stored bytes (issue 15). */
  meters: Meters = NO_METERS;
  private log: (msg: string) => void;

  constructor(readonly storage: Storage, log: (msg: string) => void = () => {}) {
    this.log = log;
    storage.watch?.(this.sharedListener());
  }

  /** A loaded state, if any (no I/O). */
  loaded(basin: string, name: string): StreamState | undefined {
    return this.states.get(streamKey(basin, name));
  }

  allLoaded(): IterableIterator<StreamState> {
    return this.states.values();
  }

  forget(state: StreamState): void {
    const key = streamKey(state.meta.basin, state.meta.name);
    if (this.states.get(key) === state) this.states.delete(key);
  }

  /**
   * The live state of a stream, for append, read and check-tail. A missing stream is
   * auto-created when the basin asks for it (§10.3); concurrent auto-creates are serialised
   * by the metadata mutex, so exactly one stream is created and every caller uses it.
   * `admit` sees a stream about to be auto-created and may throw to refuse the request first
   * (§10.3: a rejected request never creates a stream), e.g. for a key its cipher needs.
   */
  async stream(basin: string, name: string, autoCreate: AutoCreate, admit?: (meta: StreamMeta) => void): Promise<StreamState> {
    const hit = this.states.get(streamKey(basin, name));
    if (hit && !hit.broken && (!this.storage.shared || this.revalidate(hit))) {
      if (hit.deleting) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
      return hit;
    }
    return this.meta.run(async () => {
      // A state broken by a failed write is reloaded only once its last write has settled.
      if (hit?.broken) await hit.writesSettled();
      let meta = this.storage.getStream(basin, name);
      if (!meta) meta = await this.autoCreate(basin, name, autoCreate, admit);
      if (meta.deletedAt !== null) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
      return this.load(meta);
    });
  }

  /**
   * Shared storage: brings a loaded state up to what any node stored (metadata and tail);
   * false when the stream is gone or was replaced (the state is then forgotten).
   */
  revalidate(s: StreamState): boolean {
    return this.applyStored(s, this.storage.getStream(s.meta.basin, s.meta.name), () => this.storage.getState(s.id));
  }

  /** Applies what storage holds for a loaded stream: its metadata under its name, then its state. */
  private applyStored(s: StreamState, meta: StreamMeta | undefined, stored: () => StreamStateRecord | undefined): boolean {
    if (!meta || meta.id !== s.id) {
      s.markDeleting();
      this.forget(s);
      return false;
    }
    if (meta.deletedAt !== null) s.markDeleting();
    else s.meta = meta;
    const state = stored();
    if (state) s.observe(state);
    return true;
  }

  /** What a shared storage reports about other nodes' changes, applied to loaded states. */
  private sharedListener(): StorageListener {
    return {
      loadedIds: () => [...this.states.values()].map((s) => s.id),
      tailMoved: (id, state) => {
        for (const s of this.states.values()) if (s.id === id) s.observe(state);
      },
      loadedStreams: () => [...this.states.values()].map((s) => ({ id: s.id, basin: s.meta.basin, name: s.meta.name })),
      refreshed: (id, basin, name, meta, state) => {
        const s = this.states.get(streamKey(basin, name));
        if (s && s.id === id) this.applyStored(s, meta, () => state); // else replaced meanwhile
      },
      metaChanged: (basin, name) => {
        for (const s of [...this.states.values()]) {
          if (basin !== undefined && (s.meta.basin !== basin || (name !== undefined && s.meta.name !== name))) continue;
          try {
            this.revalidate(s);
          } catch (e) {
            this.log(`could not revalidate ${s.meta.basin}/${s.meta.name}: ${(e as Error).message}`);
          }
        }
      },
    };
  }

  /** Loads (or returns) the state of a stream whose meta is known. Call under the mutex. */
  load(meta: StreamMeta): StreamState {
    const key = streamKey(meta.basin, meta.name);
    const hit = this.states.get(key);
    if (hit && !hit.broken && hit.id === meta.id) return hit;
    const state = this.storage.getState(meta.id) ?? initialState(Date.parse(meta.createdAt));
    this.checkRecovered(meta, state);
    if (TEST_FAULT === "tail-short" && state.nextSeq > 0) state.nextSeq -= 1;
    const s = new StreamState(meta, state, this.storage, () => this.onWork());
    s.meter = this.meters.meter(meta.basin, meta.name);
    this.states.set(key, s);
    return s;
  }

  /** The stored tail must cover the stored data; batch and state share a transaction. */
  private checkRecovered(meta: StreamMeta, state: StreamStateRecord): void {
    const last = this.storage.lastBatch(meta.id);
    if (!last) return;
    const end = last.firstSeq + last.records.length;
    if (end > state.nextSeq) {
      this.log(`recovery: stream ${meta.basin}/${meta.name} state tail ${state.nextSeq} is behind its data (${end}); using the data`);
      state.nextSeq = end;
      state.lastTimestamp = last.lastTimestamp;
    }
  }

  private async autoCreate(basin: string, name: string, mode: AutoCreate, admit?: (meta: StreamMeta) => void): Promise<StreamMeta> {
    const b = this.storage.getBasin(basin);
    if (!b) throw serverError("basin_not_found", `basin ${basin} does not exist`);
    const allowed = mode === "append" ? b.config.create_stream_on_append : mode === "read" ? b.config.create_stream_on_read : false;
    if (!allowed) throw serverError("stream_not_found", `stream ${name} does not exist`);
    if (b.deletedAt !== null) throw serverError("basin_deletion_pending", `basin ${basin} is being deleted`);
    const createdMs = Date.now();
    const meta: StreamMeta = {
      basin, name, id: this.storage.allocateStreamId(),
      config: resolveStreamConfig({}, b.config.default_stream_config),
      createdAt: nowIso(createdMs), deletedAt: null, requestKey: null,
    };
    if (b.config.stream_cipher) meta.cipher = b.config.stream_cipher;
    admit?.(meta);
    try {
      await this.storage.writeMeta([{ op: "putStream", meta }, { op: "putState", id: meta.id, state: initialState(createdMs) }]);
    } catch (e) {
      // Shared storage: another node auto-created it at the same moment; use theirs.
      const theirs = (e as { code?: string }).code === "resource_already_exists" ? this.storage.getStream(basin, name) : undefined;
      if (theirs) return theirs;
      throw e;
    }
    return meta;
  }

  /** Ends all followers; used on shutdown so long-polls answer at once. */
  closeFollowers(): void {
    const e = serverError("unavailable", "the server is shutting down");
    for (const s of this.states.values()) s.closeFollowers(e);
  }

  /** Waits until every accepted append is durable. */
  async drain(): Promise<void> {
    await Promise.all([...this.states.values()].map((s) => s.whenIdle()));
  }
}
