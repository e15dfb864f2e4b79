/** The typed client. Importing it loads no network library; the transport loads on first call. */
export { SvcClient, BasinClient } from "./client.js";
export type { SvcClientOptions } from "./client.js";
export { BasinsApi } from "./basins.js";
export { StreamsApi } from "./streams.js";
export { StreamClient } from "./stream.js";
export type { UnaryEncoding, UnaryOptions } from "./stream.js";
export { AccessTokensApi } from "./access-tokens.js";
export { MetricsApi } from "./metrics.js";
export { LocationsApi } from "./locations.js";
export { PingApi } from "./ping.js";
export type { PingReply } from "./ping.js";
export { Redacted, REDACTED } from "./redacted.js";
export { basinRoute, isHostRouted, normalizeEndpoint } from "./endpoints.js";
export type { ListAllOptions } from "./paginate.js";
export type {
  BasinConfigWithCipher, BasinReconfiguration, CreateBasinOptions, CreateStreamOptions,
  Provisioned, ProvisionResult, StreamCipher, StreamReconfiguration,
} from "./config-types.js";
