/**
 * svc as a library: the typed client of the Stream Storage Service (docs/library.md).
 *
 * The front door of the client package, `svc-client` (packages/client, built from this file by
 * scripts/build-client.mjs): `import { SvcClient } from "svc-client"` gets the names below,
 * listed by hand, which are the public API; nothing else of the package can be imported. This is the one module of src/ that re-exports (docs/architecture.md,
 * "Who may import whom"): a package needs one front door, and a list written out keeps what is
 * public a decision rather than whatever a folder happens to hold.
 *
 * Importing it loads no network library: the transports load on the first request.
 */

export type { AccessTokensApi } from "./client/access-tokens.js";
export type { AppendSessionOptions } from "./client/append-session.js";
export type { Appender, AppenderOptions, AppendTicket, AppendTransport } from "./client/appender.js";
export { BadRecordError } from "./client/bad-record.js";
export type { BasinsApi } from "./client/basins.js";
export type { ClientCallOptions, SessionCompression } from "./client/call-options.js";
// The client tree: account → basin → stream.
// BasinClient and StreamClient are made by the tree (client.basin(), basin.stream()), never
// constructed by a user: their types are public, their constructors are not.
export { type BasinClient, SvcClient, type SvcClientOptions } from "./client/client.js";
export type {
  BasinConfigWithCipher,
  BasinReconfiguration,
  CreateBasinOptions,
  CreateStreamOptions,
  Provisioned,
  ProvisionResult,
  StreamReconfiguration,
} from "./client/config-types.js";
export type { LocationsApi } from "./client/locations.js";
export type { MetricsApi } from "./client/metrics.js";
export type { ListAllOptions } from "./client/paginate.js";
export type { PingApi, PingReply } from "./client/ping.js";
export type { ReadSessionOptions } from "./client/read-resume.js";
export { Redacted } from "./client/redacted.js";
export type {
  ReadOptions,
  ReadTransport,
  StreamAppenderOptions,
  StreamClient,
  UnaryEncoding,
  UnaryOptions,
} from "./client/stream.js";
export type { StreamsApi } from "./client/streams.js";

// Errors: one type, told apart by `code`, never by message text.
export {
  type ClientCode,
  type ErrorOrigin,
  FencingTokenMismatchError,
  RangeNotSatisfiableError,
  SeqNumMismatchError,
  type ServerCode,
  SvcError,
} from "./errors.js";
export type {
  AccountMetricSet,
  BasinMetricSet,
  Metric,
  MetricInterval,
  MetricSetResponse,
  MetricsQuery,
  MetricUnit,
  StreamMetricSet,
} from "./metric-types.js";
export type {
  AccessTokenInfo,
  AccessTokenScope,
  AppendAck,
  AppendInput,
  AppendRecord,
  BasinConfig,
  BasinInfo,
  BasinScope,
  BasinState,
  DeleteOnEmptyConfig,
  Dialect,
  Header,
  ListOptions,
  LocationInfo,
  Operation,
  Page,
  ReadBatch,
  ReadEvent,
  ReadLimits,
  ReadParams,
  ReadStart,
  ReadWritePermissions,
  ResourceSet,
  RetentionPolicy,
  SequencedRecord,
  StorageClass,
  StreamCipher,
  StreamConfig,
  StreamInfo,
  StreamPosition,
  TimestampingConfig,
  TimestampingMode,
} from "./types.js";
// Plain data: records, positions, configurations, tokens, metrics.
export { LIMITS, OPERATIONS } from "./types.js";
