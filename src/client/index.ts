/** The typed client. Importing it loads no network library; the transport loads on first call. */
export { SvcClient, BasinClient } from "./client.js";
export type { SvcClientOptions } from "./client.js";
export { BasinsApi } from "./basins.js";
export { StreamsApi } from "./streams.js";
export { StreamClient } from "./stream.js";
export type { ReadOptions, ReadTransport, StreamAppenderOptions, UnaryEncoding, UnaryOptions } from "./stream.js";
export { checkAppendInput } from "./appender.js";
export type { Appender, AppendTicket, AppendTransport } from "./appender.js";
export type { ReadEvent } from "./read-session.js";
export { AccessTokensApi } from "./access-tokens.js";
export { MetricsApi } from "./metrics.js";
export { LocationsApi } from "./locations.js";
export { PingApi } from "./ping.js";
export type { PingReply } from "./ping.js";
export { Redacted, REDACTED } from "./redacted.js";
export { basinNameProblem, streamNameProblem, tokenIdProblem, assertBasinName, assertStreamName, assertTokenId } from "./names.js";
export { basinRoute, isHostRouted, normalizeEndpoint } from "./endpoints.js";
export type { ListAllOptions } from "./paginate.js";
export type {
  BasinConfigWithCipher, BasinReconfiguration, CreateBasinOptions, CreateStreamOptions,
  Provisioned, ProvisionResult, StreamCipher, StreamReconfiguration,
} from "./config-types.js";
