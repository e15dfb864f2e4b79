/**
 * The Storage interface of svc lite: metadata (basins, streams, per-stream state) and record
 * batches. Two implementations: `lmdb` (durable, on disk) and `memory` (`--in-memory`, tests).
 *
 * Contract:
 * - Reads are synchronous and see everything written so far (even before it is durable);
 *   the store layer bounds reads by the durable tail, so nothing unacknowledged is served.
 * - `appendBatch` and `writeMeta` resolve only once the write is durable (synced to disk for
 *   lmdb). Writes resolve in the order they were issued.
 * - `appendBatch` writes only if the stored tail's nextSeq equals the batch's first seq num
 *   (checked atomically) and rejects otherwise: after a failed write, batches sequenced
 *   behind it never land beyond the hole it left.
 * - One appended batch is stored as ONE value keyed by (stream id, first seq num): measured
 *   3× faster than one key per record (performance.md §6). The batch and the stream state it
 *   changes are written in the same transaction.
 */
import type { SequencedRecord } from "../../types.js";
import type { ResolvedStreamConfig, StoredBasinConfig } from "../store/stream-config.js";
import type { StoredToken } from "../auth/token-info.js";
import type { StreamCipher } from "../crypto/record-cipher.js";

export interface BasinMeta {
  name: string;
  config: StoredBasinConfig;
  createdAt: string;
  deletedAt: string | null;
  /** Idempotency key of the POST that created it (protocol.md §10.5), or null. */
  requestKey: string | null;
}

export interface StreamMeta {
  basin: string;
  name: string;
  /** Internal id; record keys use it, so a name can be reused after deletion. */
  id: number;
  config: ResolvedStreamConfig;
  createdAt: string;
  deletedAt: string | null;
  requestKey: string | null;
  /** §8.8: set at creation from the basin's stream_cipher; absent or null = plaintext. */
  cipher?: StreamCipher | null;
}

/** Per-stream state, written in the same transaction as every batch that changes it. */
export interface StreamStateRecord {
  /** The tail: next seq num and the last record's timestamp (0 when empty). */
  nextSeq: number;
  lastTimestamp: number;
  fencingToken: string;
  /** Records below this seq num are trimmed (0: nothing trimmed). */
  trimPoint: number;
  /** Arrival time (ms) of the last append, kept monotonic; retention and delete-on-empty use it. */
  lastArrival: number;
}

/** One appended batch as stored: consecutive records from `firstSeq`, all arrived at `arrival`. */
export interface StoredBatch {
  firstSeq: number;
  arrival: number;
  lastTimestamp: number;
  records: SequencedRecord[];
  /**
   * Batches read back from an encoded value (batch-codec.ts version 2) also offer their
   * records as the bytes a read sends; `records` is then decoded only when asked for.
   */
  readonly wire?: StoredWire;
}

/** A stored batch's records by index, and as encoded `ReadBatch.records` fields. */
export interface StoredWire {
  readonly count: number;
  timestamp(i: number): number;
  /** Metered size (wire/batch.ts) of record i. */
  metered(i: number): number;
  /** Bytes of record i's encoded field (what it takes in a ReadBatch). */
  encoded(i: number): number;
  /** The encoded fields of records [from, to): a view, valid as long as the batch. */
  slice(from: number, to: number): Uint8Array;
}

export type MetaOp =
  | { op: "putBasin"; meta: BasinMeta }
  | { op: "deleteBasin"; name: string }
  | { op: "putStream"; meta: StreamMeta }
  | { op: "deleteStream"; basin: string; name: string }
  | { op: "putState"; id: number; state: StreamStateRecord }
  | { op: "deleteState"; id: number }
  | { op: "putToken"; token: StoredToken }
  | { op: "deleteToken"; id: string; keyId: string };

/** A stored batch without its records. */
export interface BatchHead {
  firstSeq: number;
  count: number;
  arrival: number;
}

export interface Storage {
  /** True when writes survive a crash (lmdb); false for memory. */
  readonly durable: boolean;

  getBasin(name: string): BasinMeta | undefined;
  /** Basins with name > `after` (exclusive) starting with `prefix`, ascending, at most `limit`. */
  listBasins(prefix: string, after: string, limit: number): BasinMeta[];
  getStream(basin: string, name: string): StreamMeta | undefined;
  /** Streams of a basin, byte-wise ascending by name, like listBasins. */
  listStreams(basin: string, prefix: string, after: string, limit: number): StreamMeta[];
  getState(id: number): StreamStateRecord | undefined;
  getToken(id: string): StoredToken | undefined;
  getTokenByKey(keyId: string): StoredToken | undefined;
  /** Issued tokens with id > `after` starting with `prefix`, byte-wise ascending, at most `limit`. */
  listTokens(prefix: string, after: string, limit: number): StoredToken[];
  /** Allocates a stream id; it is persisted by the next `writeMeta`. */
  allocateStreamId(): number;
  /** Applies metadata changes atomically; resolves when durable. */
  writeMeta(ops: MetaOp[]): Promise<void>;

  /** Stores one batch and the new stream state atomically; resolves when durable. */
  appendBatch(id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void>;
  /**
   * Up to `maxBatches` batches in seq order, starting with the batch that contains `fromSeq`
   * (or the first one after it).
   */
  readBatches(id: number, fromSeq: number, maxBatches: number): StoredBatch[];
  /**
   * What the background sweep needs of the same batches: where each starts, how many records,
   * when it arrived. No records are read (on PostgreSQL, no more than each value's first bytes,
   * and without holding the event loop).
   */
  batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]>;
  /** First seq num of the first batch whose last timestamp is ≥ `timestamp`, if any. */
  findTimestamp(id: number, timestamp: number): number | undefined;
  /** The last stored batch of a stream (recovery check), if any. */
  lastBatch(id: number): StoredBatch | undefined;
  /** Removes up to `max` whole batches that lie entirely below `seq`; returns how many. */
  deleteBatchesBelow(id: number, seq: number, max: number): Promise<number>;

  // --- Metrics (issue 15): small JSON values under ordered string keys, kept apart from
  // --- the service's data. The recorder (lite/metrics/recorder.ts) owns their meaning.

  /** Metric values with start ≤ key < end (byte-wise), ascending by key. */
  readMetrics(start: string, end: string): [string, unknown][];
  /** Writes metric values and deletes the bucket keys ("b:…") below `deleteBelow`; resolves when durable. */
  writeMetrics(puts: [string, unknown][], deleteBelow: string): Promise<void>;
  /** Set by the recorder: told how long each wait for a sync to disk took, in seconds. */
  onSync?: (seconds: number) => void;

  close(): Promise<void>;

  // ---- Shared storage (PostgreSQL): several nodes write the same data ----
  /**
   * True when other processes write the same streams: cached stream states are revalidated
   * per request, a write that loses a race fails with 409 `transaction_conflict` (nothing
   * written), and `watch` reports what other nodes changed.
   */
  readonly shared?: boolean;
  /** Subscribes the store to changes made by any node (LISTEN/NOTIFY plus polling). */
  watch?(listener: StorageListener): void;
  /**
   * Whether this node runs the periodic sweep now: one node at a time does (on PostgreSQL the
   * one whose listening connection holds an advisory lock; when that node or its connection is
   * gone, the next node to ask takes over). Absent: always, the data has one owner.
   */
  leadsSweep?(): Promise<boolean>;
}

/** What a shared storage reports; the store applies it to the streams it has loaded. */
export interface StorageListener {
  /** Ids of the loaded streams, whose tails are polled in case a notification was missed. */
  loadedIds(): number[];
  /** A stream's stored state moved (to `state` or further). */
  tailMoved(id: number, state: StreamStateRecord): void;
  /** A basin's (no name) or stream's metadata changed; both undefined: anything may have. */
  metaChanged(basin: string | undefined, name: string | undefined): void;
  /** The loaded streams, for a refresh of all their metadata (the poll's every 5th time). */
  loadedStreams(): { id: number; basin: string; name: string }[];
  /**
   * What storage holds now, read by the storage itself (in one query, without holding the event
   * loop), for loaded stream `id`: the stream under its name (undefined: none) and, when that
   * is still stream `id`, its state.
   */
  refreshed(id: number, basin: string, name: string, meta: StreamMeta | undefined, state: StreamStateRecord | undefined): void;
}
