/**
 * The storage seams of svc lite, one per concern: the catalog (basins, streams, access
 * tokens), the record log, metrics, and, when several nodes share one database, the
 * cluster. A backend bundles them; only the store (store/store.ts) holds one.
 *
 * Two kinds of backend, each seam typed by its kind (answers.ts: `Catalog<"local">` is a
 * LocalCatalog; a seam without a kind is what code serving either kind takes):
 * - local (lmdb, memory): this process is the only writer. The store sequences appends in
 *   memory and the log stores each batch with the stream state it produced. Reads return
 *   values at once (no promise), so lmdb keeps its synchronous speed.
 * - shared (PostgreSQL): any number of nodes write the same data. The database sequences
 *   appends (`SharedLog.append`), every change of metadata is conditional on what is stored,
 *   reads wait for the database (or its cache), and the cluster carries hints of other nodes'
 *   changes.
 *
 * Every write resolves only once it is durable (synced to disk, or committed).
 */
import type { Answer, BackendKind, CachedAnswer } from "./answers.js";
import type { BasinMeta, BatchHead, StoredBatch, StoredToken, StreamMeta, StreamStateRecord } from "./types.js";

export interface CatalogReads<K extends BackendKind = BackendKind> {
  getBasin(name: string): CachedAnswer<K, BasinMeta | undefined>;
  /** Basins with name > `after` (exclusive) starting with `prefix`, byte-wise ascending, at most `limit`. */
  listBasins(prefix: string, after: string, limit: number): Answer<K, BasinMeta[]>;
  getStream(basin: string, name: string): CachedAnswer<K, StreamMeta | undefined>;
  /** Streams of a basin, like listBasins. */
  listStreams(basin: string, prefix: string, after: string, limit: number): Answer<K, StreamMeta[]>;
  getToken(id: string): Answer<K, StoredToken | undefined>;
  getTokenByKey(keyId: string): CachedAnswer<K, StoredToken | undefined>;
  /**
   * Counts the changes of access tokens this catalog was told of by other nodes (a shared
   * backend's notifications; 0 where this process is the only writer): a reader that judged a
   * token at one count may trust its verdict while the count stays.
   */
  readonly tokenChanges?: number;
  /** Issued tokens with id > `after` starting with `prefix`, byte-wise ascending, at most `limit`. */
  listTokens(prefix: string, after: string, limit: number): Answer<K, StoredToken[]>;
}

/**
 * One change of the catalog, applied only if its condition holds against what is stored
 * (no change writes back a whole record read earlier):
 *
 *   createBasin    the name is free
 *   updateBasin    the stored basin is `meta.id` at revision `rev`, and not being deleted
 *   deleteBasin    the stored basin is `id` and not being deleted; it and every stream of it
 *                  not yet being deleted are marked deleting, whatever streams exist then
 *   removeBasin    the stored basin is `id`, being deleted, and has no stream left
 *   createStream   the basin is there and not being deleted, and the name is free
 *   updateStream   the stored stream is `meta.id` at revision `rev`, and not being deleted
 *   deleteStream   the stored stream is `id` and not being deleted (and, with `ifTail`, its
 *                  state still has that tail and last arrival: nothing was appended since;
 *                  with `ifRev`, it is still at that revision: its config did not change)
 *   removeStream   the stored stream is `id`; it, its state and its records are removed
 *   putToken       no token has the id
 *   deleteToken    the token `id` is stored with key `keyId`
 */
export type CatalogChange =
  | { op: "createBasin"; meta: BasinMeta }
  | { op: "updateBasin"; meta: BasinMeta; rev: number }
  | { op: "deleteBasin"; name: string; id: number; at: string }
  | { op: "removeBasin"; name: string; id: number }
  | { op: "createStream"; meta: StreamMeta; state: StreamStateRecord }
  | { op: "updateStream"; meta: StreamMeta; rev: number }
  | {
      op: "deleteStream";
      basin: string;
      name: string;
      id: number;
      at: string;
      ifTail?: { nextSeq: number; lastArrival: number };
      ifRev?: number;
    }
  | { op: "removeStream"; basin: string; name: string; id: number }
  | { op: "putToken"; token: StoredToken }
  | { op: "deleteToken"; id: string; keyId: string };

export interface Catalog<K extends BackendKind = BackendKind> extends CatalogReads<K> {
  /** A new id for a basin or a stream, never handed out before. */
  newId(): Answer<K, number>;
  /** Applies `change` when its condition holds (true) or does nothing (false); durable when resolved. */
  change(change: CatalogChange): Promise<boolean>;
}

/** The catalog of a local backend: its reads answer at once. */
export type LocalCatalog = Catalog<"local">;
/** The catalog of a shared backend: its reads wait for the database (or its cache). */
export type SharedCatalog = Catalog<"shared">;

/** A stream as the sweep saw it: what a removal decided from its config is conditional on. */
export interface StreamRevision {
  basin: string;
  name: string;
  rev: number;
}

/** What a removal of batches removed. */
export interface Removed {
  batches: number;
  /** Metered bytes of their records (rules/records.ts). */
  metered: number;
}

/** What every log offers to reads and to the background sweep. */
export interface RecordLog<K extends BackendKind = BackendKind> {
  /**
   * Up to `maxBatches` batches in seq order, starting with the batch that contains `fromSeq`
   * (or the first one after it).
   */
  readBatches(id: number, fromSeq: number, maxBatches: number): Answer<K, StoredBatch[]>;
  /** First seq num of the first batch whose last timestamp is ≥ `timestamp`, if any. */
  findTimestamp(id: number, timestamp: number): Answer<K, number | undefined>;
  /** Where each batch starts, how many records, when it arrived: no records are read. */
  batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]>;
  /**
   * Carries out a removal up to `seq`: the stream's removal mark rises to `seq` (no record
   * below it is served again, even one sharing a batch with records above it), and up to `max`
   * whole batches that lie entirely below `seq` are removed, in the same write. Answers how
   * many, and the metered size of their records. With `ifRev`, only while the stream is still
   * stored under that name, live, at that revision, checked in the same write: a removal
   * decided from a config (retention) does nothing once the config has changed.
   */
  deleteBatchesBelow(id: number, seq: number, max: number, ifRev?: StreamRevision): Promise<Removed>;
}

/** The log of a local backend: the store sequences, the log stores batch and state together. Reads answer at once. */
export interface LocalLog extends RecordLog<"local"> {
  getState(id: number): StreamStateRecord | undefined;
  /** The stream's removal mark (deleteBatchesBelow; 0 when nothing was removed). */
  removedBelow(id: number): number;
  /** The last stored batch of a stream (recovery check), if any. */
  lastBatch(id: number): StoredBatch | undefined;
  /**
   * Stores one batch and the new stream state atomically, only if the stored tail's nextSeq
   * is the batch's first seq num (else it rejects: batches sequenced behind a failed write
   * never land beyond the hole). Writes resolve in the order they were issued.
   */
  appendBatch(id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void>;
}

/** One append of a group, as the database sequences it (store/shared-stream.ts plans it). */
export interface PlannedAppend {
  count: number;
  /** Appends of one chain (an append session) after a refused one are skipped. */
  chain: number;
  matchSeqNum: number | undefined;
  fencingToken: string | undefined;
  /** The batch's last record's timestamp before the stored floor applies (see sequencing.ts). */
  lastTimestamp: number;
  /** Command records, in order: index in the batch, and a fence token or a trim point. */
  commands: { index: number; fence?: string; trim?: number }[];
  /** The seq num the node expects it to land at (its view of the tail): what `data` is encoded with. */
  plannedFirst: number;
  /** The encoded batch (batch-codec.ts) as planned. */
  data: Uint8Array;
}

/** The outcome of one planned append: where it landed, or why it did not. */
export type AppendOutcome =
  | { ok: true; firstSeq: number; timestampFloor: number }
  | { ok: false; fencingToken: string }
  | { ok: false; nextSeq: number }
  | { ok: false; skipped: true };

export interface GroupResult {
  /** "gone": no such stream; "deleting": the stream is being deleted; nothing was written. */
  refused?: "gone" | "deleting";
  outcomes: AppendOutcome[];
  /** The stored state after the group (before it, when refused). */
  state: StreamStateRecord;
}

/**
 * A stream's state with its removal mark: no record below `removedBelow` is served again (the
 * sweep carried out a trim, or removed expired records, up to there). A trim point above the
 * mark is recorded but not carried out yet: its records may still be read (protocol.md §7.7).
 */
export interface MarkedState extends StreamStateRecord {
  removedBelow: number;
}

/** A stream's state as stored, with whether the stream is still live. */
export interface StoredState extends MarkedState {
  live: boolean;
  /** Set when a node found this stream's stored tail below what it had acknowledged (store/went-back.ts). */
  wentBack?: { from: number; to: number };
}

/** The log of a shared backend: the database sequences every append against its stored tail. */
export interface SharedLog extends RecordLog<"shared"> {
  /**
   * Sequences and stores `group` (in order) in one statement; durable when resolved.
   * `queuedSince` (performance.now()): when its first append began to wait, which the write's
   * deadline counts from (an append queued behind a hung statement does not wait twice).
   */
  append(id: number, group: PlannedAppend[], arrival: number, queuedSince?: number): Promise<GroupResult>;
  /** The stored states of streams `ids` (absent: no such stream), in one read. */
  states(ids: number[]): Promise<Map<number, StoredState>>;
  /**
   * Keeps, for every node and every later start, that stream `id`'s stored tail went back from
   * `from` to `to` (a second finding widens the first).
   */
  recordWentBack(id: number, from: number, to: number): Promise<void>;
}

/**
 * Metrics as plain numbers that every node adds to; what they mean is the recorder's
 * (metrics/recorder.ts, buckets.ts). Minutes are epoch seconds (multiples of 60).
 *
 *   counts   (minute, scope, name) → n    scope "" is the account, else a basin name
 *   totals   name → n                     kept since metrics were first kept
 *   stored   (basin, stream) → bytes      a gauge every node changes by deltas; stream ""
 *                                         is the basin's own row, changed by the sum of its
 *                                         streams' deltas
 *   samples  (basin, stream, minute) → bytes   the stored row's value after its last change
 *                                         in that minute
 *
 * Sums are the storage's: a local backend adds within its one process, a shared one in the
 * database, so every node's counts land in one sum. Values are raw sums (a stored row may go
 * below zero when counts were lost); the recorder clamps what it reports.
 */
export interface MetricCount {
  t: number;
  scope: string;
  name: string;
  n: number;
}

/** A change of one stream's stored bytes, sampled at minute `t` (with its basin's) once added. */
export interface StoredChange {
  t: number;
  basin: string;
  stream: string;
  /** The stream's id: a shared backend drops the change when no stream of this id exists any more. */
  id: number;
  n: number;
}

/** What a node counted since it last added; each key appears at most once. */
export interface MetricsDelta {
  counts: MetricCount[];
  totals: [name: string, n: number][];
  stored: StoredChange[];
  /** When set, counts and samples of minutes before it are deleted. */
  pruneBefore?: number;
}

export interface StoredSample {
  t: number;
  bytes: number;
}

export interface MetricsStore<K extends BackendKind = BackendKind> {
  /** Adds `delta` to what is stored (in one transaction); resolves when durable. */
  add(delta: MetricsDelta): Promise<void>;
  /**
   * Stream `id`'s records are gone: its stored bytes leave it and its basin, both sampled at
   * minute `t` (a stream without stored bytes is not sampled); resolves when durable. A shared
   * backend then ignores changes for that id still on their way from other nodes.
   */
  drop(t: number, basin: string, stream: string, id: number): Promise<void>;
  /** Counts of minutes in [from, to], of one scope or (undefined) of all. */
  counts(from: number, to: number, scope?: string): Answer<K, MetricCount[]>;
  /** Samples of a stream's stored bytes (stream "": its basin's) at minutes in [from, to], by time. */
  samples(basin: string, stream: string, from: number, to: number): Answer<K, StoredSample[]>;
  /** Stored bytes now of a stream, of a basin (stream ""), or (basin undefined) of every basin. */
  stored(basin?: string, stream?: string): Answer<K, number>;
  totals(): Answer<K, [name: string, n: number][]>;
}

/**
 * What another node changed, as a hint to read again (never trusted for its content). Hints
 * between nodes carry ids, never names (any role that may connect can listen): a metadata
 * hint names a stream (`streamId`), a basin (`basinId`), or a basin with all its streams
 * (`streams`, a basin deleted); the receiving node adds the basin's name (`basin`) when it can
 * find it. A hint with no ids means everything of its kind.
 */
export type ClusterHint =
  | { kind: "tails"; ids?: number[] }
  | { kind: "meta"; basinId?: number; streamId?: number; streams?: boolean; basin?: string }
  | { kind: "tokens" }
  /**
   * Contact with the database was lost and is back (perhaps on another host, a promoted
   * standby): nothing remembered of it (cached batches, tails) is served before it is read again.
   */
  | { kind: "lost" };

/** Several nodes on one database: hints of each other's changes, and who runs the sweep. */
export interface Cluster {
  /** Starts delivering hints (notifications, and a periodic poll for the ones missed). */
  watch(onHint: (hint: ClusterHint) => void): void;
  /** Tells the other nodes about a change this node made (after it is durable). */
  announce(hint: ClusterHint): void;
  /**
   * Whether this node runs the periodic sweep now (one node at a time does): it holds the
   * sweep's lease, renewed in the background, and will for a while yet. Never waits.
   */
  leadsSweep(): boolean;
}

interface BackendBase<K extends BackendKind> {
  readonly kind: K;
  /** True when writes survive a crash (lmdb, PostgreSQL); false for memory. */
  readonly durable: boolean;
  readonly catalog: Catalog<K>;
  readonly metrics: MetricsStore<K>;
  /** Set by the metrics: told how long each wait for a sync to disk took, in seconds. */
  onSync?: (seconds: number) => void;
  close(): Promise<void>;
}

export interface LocalBackend extends BackendBase<"local"> {
  readonly log: LocalLog;
  /** Resolves once every write committed so far is durable (what a read saw may be answered). */
  settled(): Promise<void>;
}

/**
 * The clock a shared backend's nodes stamp arrivals and judge retention and min-age by (ms
 * since the epoch), the same for every node however wrong one's own clock is.
 */
export interface NodeClock {
  now(): number;
  /** Why ages must not be judged now (this node cannot tell the time well enough), else undefined. */
  unsure(): string | undefined;
  /** This node's wall clock's offset from the shared clock (ms, positive: ahead), and how far off now() may be. */
  offsetMs(): number;
  uncertaintyMs(): number;
}

export interface SharedBackend extends BackendBase<"shared"> {
  readonly log: SharedLog;
  readonly cluster: Cluster;
  readonly clock: NodeClock;
}

export type Backend = LocalBackend | SharedBackend;
