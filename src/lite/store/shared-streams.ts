/**
 * Live streams on a shared backend (PostgreSQL, several nodes): how they are loaded, kept
 * fresh and told about other nodes' changes.
 *
 * - A loaded stream's metadata is checked against the catalog at every request; the catalog
 *   serves it from a cache bounded in time and dropped by hints (storage/pg/catalog.ts).
 * - Stored states are read through one tail reader: every read it answers was started by a
 *   query that began after the read was asked for (so it reflects every append acknowledged
 *   before), and concurrent reads of any streams share queries (at most MAX_QUERIES at a time).
 * - Hints (another node appended, changed metadata; or the poll) make the streams named, or
 *   every loaded one, read their stored state again; their content is never trusted.
 */
import { serverError } from "../../errors.js";
import { streamOf } from "../log.js";
import type { ClusterHint, SharedBackend, StoredState } from "../storage/seams.js";
import type { StreamMeta } from "../storage/types.js";
import { BatchCache } from "./batch-cache.js";
import type { LiveStream, StreamHooks, StreamKind } from "./live-stream.js";
import { SharedStream } from "./shared-stream.js";

const MAX_QUERIES = 2;

/** Reads stored states, sharing queries between concurrent reads. */
class TailReader {
  private waiting = new Map<
    number,
    { resolve: (s: StoredState | undefined) => void; reject: (e: unknown) => void }[]
  >();
  private running = 0;

  constructor(private readonly backend: SharedBackend) {}

  read(id: number): Promise<StoredState | undefined> {
    return new Promise((resolve, reject) => {
      let list = this.waiting.get(id);
      if (!list) this.waiting.set(id, (list = []));
      list.push({ resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiting.size > 0 && this.running < MAX_QUERIES) {
      const batch = this.waiting;
      this.waiting = new Map();
      this.running++;
      this.backend.log
        .states([...batch.keys()])
        .then(
          (found) => {
            for (const [id, list] of batch) for (const w of list) w.resolve(found.get(id));
          },
          (e: unknown) => {
            for (const list of batch.values()) for (const w of list) w.reject(e);
          },
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}

export class SharedStreams implements StreamKind<"shared"> {
  private readonly tails: TailReader;
  private readonly cache: BatchCache;

  constructor(
    private readonly backend: SharedBackend,
    private readonly hooks: StreamHooks,
    cacheBytes = 64 << 20,
  ) {
    this.tails = new TailReader(backend);
    this.cache = new BatchCache(cacheBytes);
    backend.cluster.watch((h) => this.onHint(h));
  }

  async load(meta: StreamMeta): Promise<LiveStream<"shared">> {
    const state = await this.tails.read(meta.id);
    if (!state) throw serverError("stream_not_found", `stream ${meta.name} does not exist`);
    const stream: SharedStream = new SharedStream(meta, state, {
      log: this.backend.log,
      cache: this.cache,
      onTrim: this.hooks.onTrim,
      readState: (id) => this.tails.read(id),
      wentBack: (from, to) => {
        this.hooks.wentBack?.(stream, from, to);
        this.backend.log
          .recordWentBack(stream.id, from, to)
          .catch((e: unknown) =>
            this.hooks.log(
              `could not keep in the database that ${streamOf(meta.basin, meta.name)}'s tail went back: ${(e as Error).message}`,
            ),
          );
      },
      clock: this.backend.clock,
    });
    return stream;
  }

  /** The loaded stream against the catalog (cached, bounded): the same stream, its newest metadata. */
  async check(s: LiveStream): Promise<"ok" | "gone"> {
    const meta = await this.backend.catalog.getStream(s.meta.basin, s.meta.name);
    if (!meta || meta.id !== s.id) {
      s.markDeleting();
      return "gone";
    }
    if (meta.deletedAt !== null) s.markDeleting();
    else if ((meta.rev ?? 0) >= (s.meta.rev ?? 0)) s.meta = meta;
    return "ok";
  }

  beforeReload(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {}

  private onHint(h: ClusterHint): void {
    const loaded = [...this.hooks.loaded()] as SharedStream[];
    if (h.kind === "lost") {
      // Perhaps another database now (a promoted standby): nothing cached is served before every
      // loaded stream's tail is read again and checked against what this node knew.
      this.cache.clear();
      for (const s of loaded)
        s.recheck().then(
          (v) => {
            if (v === "gone") this.hooks.forget(s);
          },
          () => this.refresh(s), // the next poll checks its tail at least
        );
    } else if (h.kind === "tails") {
      const wanted = h.ids ? new Set(h.ids) : undefined;
      for (const s of loaded) if (!wanted || wanted.has(s.id)) this.refresh(s);
    } else if (h.kind === "meta") {
      for (const s of loaded) {
        if (!concerns(h, s)) continue;
        void Promise.resolve(this.check(s)).then(
          (v) => {
            if (v === "gone") this.hooks.forget(s);
          },
          (e: unknown) =>
            this.hooks.log(`could not re-read ${streamOf(s.meta.basin, s.meta.name)}: ${(e as Error).message}`),
        );
      }
    }
  }

  private refresh(s: SharedStream): void {
    const floor = s.known.nextSeq;
    this.tails.read(s.id).then(
      (state) => {
        if (!state) {
          s.markDeleting();
          this.hooks.forget(s);
        } else if (!state.live) s.markDeleting();
        else s.verify(state, floor);
      },
      () => undefined,
    ); // the next poll tries again
  }
}

/** Whether a metadata hint may concern loaded stream `s` (a basin's own metadata concerns none of its streams). */
function concerns(h: Extract<ClusterHint, { kind: "meta" }>, s: SharedStream): boolean {
  if (h.streamId !== undefined) return s.id === h.streamId;
  if (h.basinId === undefined) return true;
  if (!h.streams) return false;
  return h.basin === undefined || s.meta.basin === h.basin;
}
