/**
 * Plain data shared by every layer: records, positions, configurations.
 *
 * Sequence numbers and timestamps are u64 on the wire. In memory they are JS numbers that are
 * always safe integers: every boundary (JSON, protobuf, flags) checks `Number.isSafeInteger`
 * and turns a larger value into a clear error, never a rounding. Record bytes are Uint8Array
 * everywhere; only format/ and wire/json.ts turn them into text.
 */

export interface Header {
  name: Uint8Array;
  value: Uint8Array;
}

/** A record as a client submits it. */
export interface AppendRecord {
  /** Client timestamp; how it is used depends on the stream's timestamping mode. */
  timestamp?: number;
  headers: Header[];
  body: Uint8Array;
}

/** One append: a batch of 1..1000 records with optional conditions. */
export interface AppendInput {
  records: AppendRecord[];
  /** The first record must receive exactly this sequence number. `0` is a real value. */
  matchSeqNum?: number;
  /** Must equal the stream's current fencing token (≤ 36 UTF-8 bytes). */
  fencingToken?: string;
}

export interface StreamPosition {
  seqNum: number;
  timestamp: number;
}

export interface AppendAck {
  start: StreamPosition;
  /** `end.seqNum` is exclusive: the last appended seq_num + 1. */
  end: StreamPosition;
  tail: StreamPosition;
}

/** A record as stored and returned by reads. */
export interface SequencedRecord {
  seqNum: number;
  timestamp: number;
  headers: Header[];
  body: Uint8Array;
}

export interface ReadBatch {
  records: SequencedRecord[];
  /** Present only for live batches and heartbeats. */
  tail?: StreamPosition;
  /**
   * @internal lite only (kept out of the published types): `records` already encoded, as consecutive `ReadBatch.records` fields (chunks
   * of stored batches, record-encode.ts `writeRecordField`). The encoder copies them instead
   * of encoding `records`, which such a batch decodes from them only when asked.
   */
  encoded?: readonly Uint8Array[];
}

/** `svc-format`: how record bytes are written in JSON. */
export type RecordFormat = "raw" | "base64";

/**
 * The names the protocol goes by (protocol.md §1.1): this service's (`svc-*` headers,
 * `svc/proto` sessions) or S2's (`s2-*`, `s2s/proto`); paths, bodies and framing are the same.
 */
export type Dialect = "svc" | "s2";
export const DIALECTS: readonly Dialect[] = ["svc", "s2"];

export type StorageClass = "standard" | "express";
export type TimestampingMode = "client-prefer" | "client-require" | "arrival";
/** §8.8: the ciphers a basin may set for the streams created in it. */
export type StreamCipher = "aes-256-gcm" | "aegis-256";
// Each value, once, for svc's flags, its spec files and lite's judgement of a request alike.
export const STORAGE_CLASSES = ["standard", "express"] as const satisfies readonly StorageClass[];
export const TIMESTAMPING_MODES = [
  "client-prefer",
  "client-require",
  "arrival",
] as const satisfies readonly TimestampingMode[];
export const STREAM_CIPHERS = ["aegis-256", "aes-256-gcm"] as const satisfies readonly StreamCipher[];

/**
 * §3.2: a stream's config where neither the request nor its basin's defaults say otherwise
 * (lite applies it; `svc apply` compares with it).
 */
export const SYSTEM_STREAM_DEFAULTS = {
  storageClass: "express",
  retentionAgeSecs: 604_800,
  timestampingMode: "client-prefer",
  timestampingUncapped: false,
  deleteOnEmptyMinAgeSecs: 0,
} as const satisfies {
  storageClass: StorageClass;
  retentionAgeSecs: number;
  timestampingMode: TimestampingMode;
  timestampingUncapped: boolean;
  deleteOnEmptyMinAgeSecs: number;
};
/** svc's one scope, and S2's (its published API); svc lite has one place, which each of them names. */
export type BasinScope = "cloud:us-east-1" | "aws:us-east-1" | "aws:us-west-2" | "aws:eu-north-1";
/** svc's one basin scope (the seed's). */
export const SVC_SCOPE = "cloud:us-east-1" satisfies BasinScope;
/** S2's basin scopes (its published API); the first is the one S2's answers name by default. */
export const S2_SCOPES = ["aws:us-east-1", "aws:us-west-2", "aws:eu-north-1"] as const satisfies readonly BasinScope[];
/** Every basin scope a request may name. */
export const BASIN_SCOPES: readonly BasinScope[] = [SVC_SCOPE, ...S2_SCOPES];
export type BasinState = "active" | "creating" | "deleting";

export type RetentionPolicy = { age: number } | { infinite: Record<string, never> };

export interface TimestampingConfig {
  mode?: TimestampingMode | null;
  uncapped?: boolean | null;
}

export interface DeleteOnEmptyConfig {
  min_age_secs?: number | null;
}

/** Stream configuration in its JSON (wire) shape; unset fields are absent or null. */
export interface StreamConfig {
  storage_class?: StorageClass | null;
  retention_policy?: RetentionPolicy | null;
  timestamping?: TimestampingConfig | null;
  delete_on_empty?: DeleteOnEmptyConfig | null;
}

/** Basin configuration in its JSON (wire) shape. */
export interface BasinConfig {
  default_stream_config?: StreamConfig | null;
  create_stream_on_append?: boolean | null;
  create_stream_on_read?: boolean | null;
}

export interface BasinInfo {
  name: string;
  scope: BasinScope | null;
  state: BasinState;
  created_at?: string;
  deleted_at?: string | null;
}

export interface StreamInfo {
  name: string;
  created_at: string;
  deleted_at?: string | null;
}

export interface ListOptions {
  /** Only names that start with this. @default "" (every name) */
  prefix?: string;
  /** Only names after this one (the last name of the page before). @default "" (from the first) */
  startAfter?: string;
  /** At most this many items in one page (1..1000). @default 1000 */
  limit?: number;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** Where a read starts: exactly one of these, or none (the tail). */
export type ReadStart = { seqNum: number } | { timestamp: number } | { tailOffset: number } | Record<string, never>;

/**
 * When a read stops (protocol.md §7.4, §7.5), and whether a start past the tail is clamped
 * (§7.2). A read with none of `count`, `bytes` and `until` follows the stream (it keeps waiting
 * for new records) unless `wait` bounds it.
 */
export interface ReadLimits {
  /** At most this many records. @default no limit (one unary read: 1000) */
  count?: number;
  /** At most this many metered bytes. @default no limit (one unary read: 1 MiB) */
  bytes?: number;
  /** Exclusive upper bound on record timestamps (ms). @default no bound */
  until?: number;
  /**
   * Seconds: the long poll of a unary read at the tail (at most 60), the idle bound of a
   * session. @default 0 when `count`, `bytes` or `until` is given, otherwise no bound
   */
  wait?: number;
  /** A start beyond the tail starts at the tail instead of failing with 416. @default false */
  clamp?: boolean;
}

/** A read as asked for: where it starts and what bounds it (the query string of B8, wire/read-query.ts). */
export interface ReadParams extends ReadLimits {
  start?: ReadStart;
}

/**
 * What a read yields, on either side: a batch of records (catch-up batches have no `tail`, live
 * ones do; protocol.md §7.6) or a heartbeat (a batch with no records: the reader is at the tail).
 */
export type ReadEvent = ({ type: "batch" } & ReadBatch) | { type: "heartbeat"; tail?: StreamPosition };

/** Access-token scope in its JSON (wire) shape: protocol.md §3.5. */
export type ResourceSet = { exact: string } | { prefix: string };

/** Every operation a token scope can grant (protocol.md §3.5), in the spec's order. */
export const OPERATIONS = [
  "list-basins",
  "create-basin",
  "delete-basin",
  "reconfigure-basin",
  "get-basin-config",
  "issue-access-token",
  "revoke-access-token",
  "list-access-tokens",
  "list-streams",
  "create-stream",
  "delete-stream",
  "get-stream-config",
  "reconfigure-stream",
  "check-tail",
  "append",
  "read",
  "trim",
  "fence",
  "account-metrics",
  "basin-metrics",
  "stream-metrics",
  "list-locations",
  "get-default-location",
  "set-default-location",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** §9.2: what each operation group grants, read and write (lite enforces it; the CLI shows it). */
export const OP_GROUPS: Record<"account" | "basin" | "stream", Record<"read" | "write", readonly Operation[]>> = {
  account: {
    read: [
      "list-basins",
      "get-basin-config",
      "list-access-tokens",
      "account-metrics",
      "list-locations",
      "get-default-location",
    ],
    write: [
      "create-basin",
      "delete-basin",
      "reconfigure-basin",
      "issue-access-token",
      "revoke-access-token",
      "set-default-location",
    ],
  },
  basin: {
    read: ["list-streams", "get-stream-config", "basin-metrics"],
    write: ["create-stream", "delete-stream", "reconfigure-stream"],
  },
  stream: { read: ["check-tail", "read", "stream-metrics"], write: ["append", "trim", "fence"] },
};

export interface ReadWritePermissions {
  read?: boolean;
  write?: boolean;
}

export interface AccessTokenScope {
  basins?: ResourceSet | null;
  streams?: ResourceSet | null;
  access_tokens?: ResourceSet | null;
  op_groups?: {
    account?: ReadWritePermissions | null;
    basin?: ReadWritePermissions | null;
    stream?: ReadWritePermissions | null;
  } | null;
  ops?: string[] | null;
}

export interface AccessTokenInfo {
  id: string;
  scope: AccessTokenScope;
  expires_at?: string | null;
  auto_prefix_streams?: boolean;
}

/** A location (protocol.md §2.2 A13–A15). */
export interface LocationInfo {
  name: string;
  is_private: boolean;
}

/**
 * The longest delay setTimeout keeps; a longer one fires after 1 ms (with a warning). Every
 * timer whose delay comes from outside (a wait, a timeout, a duration) is capped to it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** The service's limits (protocol.md §10.2). */
export const LIMITS = {
  maxBatchRecords: 1000,
  maxBatchBytes: 1024 * 1024,
  maxRecordBytes: 1024 * 1024,
  maxUnaryReadRecords: 1000,
  maxUnaryReadBytes: 1024 * 1024,
  maxUnaryWaitSecs: 60,
  maxFencingTokenBytes: 36,
  maxRequestTokenBytes: 36,
  maxFrameLength: 2 * 1024 * 1024,
  compressionThreshold: 1024,
  basinNameMin: 8,
  basinNameMax: 48,
  streamNameMaxBytes: 512,
  tokenIdMaxBytes: 96,
  listLimit: 1000,
  heartbeatMaxSecs: 15,
} as const;
