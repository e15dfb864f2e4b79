/**
 * The store: the one owner of lite's storage (a backend, storage/seams.ts) and of the live
 * streams it serves. Metadata changes run under locks by basin and stream (meta-locks.ts), so
 * those on different resources run at once, each waiting for its own write before answering; appends go straight to the stream's live
 * state once it is loaded. How a live stream is loaded and kept fresh depends on the
 * backend: local (local-streams.ts) or shared by several nodes (shared-streams.ts).
 */
import { serverError } from "../../errors.js";
import type { TokenBook } from "../auth/access.js";
import { streamOf } from "../log.js";
import { type Meters, NO_METERS } from "../metrics/meter.js";
import { MetricsRecorder } from "../metrics/recorder.js";
import type { Backend, Catalog, MarkedState, RecordLog } from "../storage/seams.js";
import type { StreamMeta } from "../storage/types.js";
import { wallClock } from "../storage/wall-clock.js";
import { initialState, type LiveStream, nowIso, type StreamKind } from "./live-stream.js";
import { LocalStreams } from "./local-streams.js";
import { MetaLocks } from "./meta-locks.js";
import { SharedStreams } from "./shared-streams.js";
import { resolveStreamConfig } from "./stream-config.js";
import { tokenBook } from "./tokens.js";

export type AutoCreate = "append" | "read" | "none";

export function streamKey(basin: string, name: string): string {
  return `${basin}\u0000${name}`;
}

export class Store {
  /** This node's metadata locks, by basin and stream (meta-locks.ts). */
  readonly meta: MetaLocks;
  readonly catalog: Catalog;
  readonly log: RecordLog;
  /** Access tokens, for auth. */
  readonly tokens: TokenBook;
  private states = new Map<string, LiveStream>();
  private readonly kind: StreamKind;
  /** Called when background work (trim, deletion) may be pending. */
  onWork: () => void = () => {};
  /** Told the records lost each time a stream's stored tail is found below what this node knew. */
  onWentBack: (records: number) => void = () => {};
  /** Where streams count their appends, reads and stored bytes. */
  meters: Meters = NO_METERS;
  private recorder: MetricsRecorder | undefined;
  private clockUnsure = false;

  /**
   * @param clock this node's clock, by which arrivals are stamped and ages judged on a local
   *   backend (a shared one uses the database's): the wall clock, or a test's that it moves
   *   instead of waiting.
   */
  constructor(
    readonly backend: Backend,
    private readonly logLine: (msg: string) => void = () => {},
    private readonly clock: () => number = wallClock,
  ) {
    this.catalog = backend.catalog;
    this.meta = new MetaLocks(backend.kind === "local" ? () => backend.settled() : () => Promise.resolve());
    this.log = backend.log;
    this.tokens = tokenBook(this.catalog);
    const hooks = {
      onTrim: () => this.onWork(),
      now: () => this.now(),
      loaded: () => this.states.values(),
      forget: (s: LiveStream) => this.forget(s),
      log: logLine,
      wentBack: (s: LiveStream, from: number, to: number) => {
        logLine(
          `stream ${streamOf(s.meta.basin, s.meta.name)}: its tail went back from ${from} to ${to}: the database no longer holds ${from - to} record(s) this node acknowledged or served (a failover to a standby that lacked them?); its readers past ${to} were ended`,
        );
        this.onWentBack(from - to);
      },
    };
    this.kind = backend.kind === "local" ? new LocalStreams(backend.log, hooks) : new SharedStreams(backend, hooks);
  }

  /**
   * Counts metrics from now on, kept in this store's storage (summed there with every other
   * node's); the recorder is the store's, closed with it.
   */
  countMetrics(flushMs: number): MetricsRecorder {
    this.recorder = new MetricsRecorder(this.backend.metrics, flushMs, this.logLine);
    this.meters = this.recorder;
    return this.recorder;
  }

  /** The time arrivals are stamped and ages judged by: the shared backend's clock, else this node's. */
  now(): number {
    return this.backend.kind === "shared" ? this.backend.clock.now() : this.clock();
  }

  /**
   * now() for judging ages (retention, a minimum age), or undefined while this node cannot tell
   * the shared clock well enough to (pg/db-clock.ts): the sweep then judges none, and says so once.
   */
  judgingNow(): number | undefined {
    const why = this.backend.kind === "shared" ? this.backend.clock.unsure() : undefined;
    if ((why !== undefined) !== this.clockUnsure) {
      this.clockUnsure = why !== undefined;
      this.logLine(
        why === undefined
          ? "the sweep judges retention and minimum ages again"
          : `the sweep removes no expired records and deletes no empty streams until this node reads the database's clock again: ${why}`,
      );
    }
    return why === undefined ? this.now() : undefined;
  }

  /** True when other nodes write the same data (PostgreSQL). */
  get shared(): boolean {
    return this.backend.kind === "shared";
  }

  /** A loaded stream, if any (no I/O). */
  loaded(basin: string, name: string): LiveStream | undefined {
    return this.states.get(streamKey(basin, name));
  }

  allLoaded(): IterableIterator<LiveStream> {
    return this.states.values();
  }

  forget(state: LiveStream): void {
    const key = streamKey(state.meta.basin, state.meta.name);
    if (this.states.get(key) === state) this.states.delete(key);
  }

  /**
   * The live state of a stream, for append, read and check-tail. A missing stream is
   * auto-created when the basin asks for it (§10.3); concurrent auto-creates are serialised
   * by the stream's lock (and, between nodes, by the catalog's condition), so exactly one
   * stream is created and every caller uses it. `admit` sees a stream about to be
   * auto-created and may throw to refuse the request first (§10.3: a rejected request never
   * creates a stream), e.g. for a key its cipher needs, or set its config (the request's).
   */
  async stream(
    basin: string,
    name: string,
    autoCreate: AutoCreate,
    admit?: (meta: StreamMeta) => void,
  ): Promise<LiveStream> {
    const hit = this.states.get(streamKey(basin, name));
    const verdict = hit && (await this.kind.check(hit));
    if (hit && verdict === "ok") {
      if (hit.deleting) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
      return hit;
    }
    if (hit && verdict === "gone") this.forget(hit);
    return this.meta.stream(basin, name, async () => {
      if (hit && verdict === "reload") await this.kind.beforeReload(hit);
      let meta = await this.catalog.getStream(basin, name);
      if (!meta) meta = await this.autoCreate(basin, name, autoCreate, admit);
      if (meta.deletedAt !== null) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
      const again = this.states.get(streamKey(basin, name));
      if (again && again !== hit && again.id === meta.id) return again;
      const s = await this.kind.load(meta);
      s.meter = this.meters.meter(meta.basin, meta.name, meta.id);
      this.states.set(streamKey(basin, name), s);
      return s;
    });
  }

  private async autoCreate(
    basin: string,
    name: string,
    mode: AutoCreate,
    admit?: (meta: StreamMeta) => void,
  ): Promise<StreamMeta> {
    for (let attempt = 0; ; attempt++) {
      const b = await this.catalog.getBasin(basin);
      if (!b) throw serverError("basin_not_found", `basin ${basin} does not exist`);
      const allowed =
        mode === "append" ? b.config.create_stream_on_append : mode === "read" ? b.config.create_stream_on_read : false;
      if (!allowed) throw serverError("stream_not_found", `stream ${name} does not exist`);
      if (b.deletedAt !== null) throw serverError("basin_deletion_pending", `basin ${basin} is being deleted`);
      const createdMs = this.now();
      const meta: StreamMeta = {
        basin,
        name,
        id: await this.catalog.newId(),
        config: resolveStreamConfig({}, b.config.default_stream_config),
        createdAt: nowIso(createdMs),
        deletedAt: null,
        requestKey: null,
        rev: 0,
      };
      if (b.config.stream_cipher) meta.cipher = b.config.stream_cipher;
      admit?.(meta);
      if (await this.catalog.change({ op: "createStream", meta, state: initialState(createdMs) })) return meta;
      // Another node created it (use theirs), or the basin changed meanwhile (judge again).
      const theirs = await this.catalog.getStream(basin, name);
      if (theirs) return theirs;
      if (attempt >= 3)
        throw serverError(
          "transaction_conflict",
          `stream ${name} could not be created: its basin keeps changing; retry`,
        );
    }
  }

  /** A stream's stored state and removal mark (what the janitor judges), read from storage. */
  async storedState(id: number): Promise<MarkedState | undefined> {
    const b = this.backend;
    if (b.kind === "shared") return (await b.log.states([id])).get(id);
    const state = b.log.getState(id);
    return state && { ...state, removedBelow: b.log.removedBelow(id) };
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

  /** Writes what metrics counted, stops background work of the streams (polls, hints) and closes the backend. */
  async close(): Promise<void> {
    await this.recorder?.close();
    await this.kind.close();
    await this.backend.close();
  }
}
