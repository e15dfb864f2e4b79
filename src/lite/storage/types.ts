/**
 * What lite stores: basins, streams, their per-stream state, access tokens and record
 * batches. The seams that store them (seams.ts) and everything above them share these shapes.
 */
import type {
  Operation,
  RetentionPolicy,
  SequencedRecord,
  StorageClass,
  StreamCipher,
  TimestampingMode,
} from "../../types.js";

/** A resource set, normalised: `{exact: ""}`, null and absent all become `none`. */
export type ResourceSet = { kind: "none" } | { kind: "exact"; value: string } | { kind: "prefix"; value: string };

export interface OpGroups {
  account: { read: boolean; write: boolean };
  basin: { read: boolean; write: boolean };
  stream: { read: boolean; write: boolean };
}

/** A token's scope as stored; auth/scope.ts answers the questions asked of it. */
export interface Scope {
  basins: ResourceSet;
  streams: ResourceSet;
  accessTokens: ResourceSet;
  opGroups: OpGroups;
  ops: Operation[];
}

/** An access token as stored: never its secret, only what finds and checks it. */
export interface StoredToken {
  id: string;
  /** Looks the token up (the public half of the secret). */
  keyId: string;
  /** sha-256 of the secret half, hex. */
  hash: string;
  scope: Scope;
  /** ISO 8601 UTC, or null for never. */
  expiresAt: string | null;
  autoPrefixStreams: boolean;
  createdAt: string;
}

export interface ResolvedStreamConfig {
  storage_class: StorageClass;
  retention_policy: RetentionPolicy;
  timestamping: { mode: TimestampingMode; uncapped: boolean };
  delete_on_empty: { min_age_secs: number };
}

/** A partial stream config: unset fields are absent (basin defaults, requested configs). */
export interface PartialStreamConfig {
  storage_class?: StorageClass;
  retention_policy?: RetentionPolicy;
  timestamping?: { mode?: TimestampingMode; uncapped?: boolean };
  delete_on_empty?: { min_age_secs?: number };
}

export interface StoredBasinConfig {
  default_stream_config: PartialStreamConfig | null;
  create_stream_on_append: boolean;
  create_stream_on_read: boolean;
  /** §8.8: the cipher of streams created from now on (absent in older data: none). */
  stream_cipher?: StreamCipher | null;
}

export interface BasinMeta {
  name: string;
  config: StoredBasinConfig;
  createdAt: string;
  deletedAt: string | null;
  /** Idempotency key of the POST that created it (protocol.md §10.5), or null. */
  requestKey: string | null;
  /** Which basin of this name: a basin deleted and created again is another one (absent in older data: 0). */
  id?: number;
  /** Counts the changes stored; a conditional change names the revision it was made on (absent: 0). */
  rev?: number;
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
  /** Counts the changes stored (absent in older data: 0). */
  rev?: number;
}

/** Per-stream state, written in the same transaction as every batch that changes it. */
export interface StreamStateRecord {
  /** The tail: next seq num and the last record's timestamp (0 when empty). */
  nextSeq: number;
  lastTimestamp: number;
  fencingToken: string;
  /**
   * The trim point the stream's trim commands set (0: none), durable with them: the sweep
   * removes the records below it later (seams.ts MarkedState, protocol.md §7.7).
   */
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
  /** Metered size (rules/records.ts) of record i. */
  metered(i: number): number;
  /** Bytes of record i's encoded field (what it takes in a ReadBatch). */
  encoded(i: number): number;
  /** The encoded fields of records [from, to): a view, valid as long as the batch. */
  slice(from: number, to: number): Uint8Array;
}

/** A stored batch without its records. */
export interface BatchHead {
  firstSeq: number;
  count: number;
  arrival: number;
}

/** Records in a stored batch, without decoding them. */
export function storedCount(b: StoredBatch): number {
  return b.wire ? b.wire.count : b.records.length;
}
