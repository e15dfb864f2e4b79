/**
 * SvcClient: the typed API. Its tree mirrors the URL tree: account-level `basins`,
 * `accessTokens`, `metrics` and `locations`; `server` for `GET /ping`; `basin(name)` for basin-level `streams`;
 * `basin(name).stream(name)` for one stream's data plane. Creating a client does no I/O and loads no network library.
 */
import { clientFail } from "../errors.js";
import { checkName } from "../rules/names.js";
import type { Dialect } from "../types.js";
import { AccessTokensApi } from "./access-tokens.js";
import { BasinsApi } from "./basins.js";
import { Caller, type CallerOptions } from "./caller.js";
import { type BasinRoute, basinRoute, normalizeEndpoint } from "./endpoints.js";
import { endpointList, Failover } from "./failover.js";
import { type LiteProofOptions, liteProofCheck } from "./lite-proof.js";
import { LocationsApi } from "./locations.js";
import { MetricsApi } from "./metrics.js";
import { PingApi } from "./ping.js";
import { Redacted } from "./redacted.js";
import { StreamClient } from "./stream.js";
import { StreamsApi } from "./streams.js";

/** Endpoints and token, plus the per-call options of CallerOptions (timeouts, retries, ...). */
export interface SvcClientOptions extends Omit<CallerOptions, "accessToken"> {
  /** e.g. `http://127.0.0.1:4243` or `https://a.example/v1`. */
  accountEndpoint: string;
  /** The same as the account endpoint (direct routing) or `https://{basin}.b.example`. */
  basinEndpoint: string;
  /** Sent as `Authorization: Bearer …`; never printed. @default none */
  accessToken?: string | Redacted;
  /** §8.8: sent as `svc-encryption-key` on every basin-level request. @default none */
  encryptionKey?: string | Redacted | undefined;
  /**
   * The token is the root token svc found in the default lite data dir: every connection's
   * server must prove it knows that token before the token goes over it (lite-proof.ts).
   */
  liteProof?: LiteProofOptions;
}

export class SvcClient {
  readonly basins: BasinsApi;
  readonly accessTokens: AccessTokensApi;
  readonly metrics: MetricsApi;
  readonly locations: LocationsApi;
  readonly server: PingApi;
  readonly accountBase: string;
  readonly basinEndpoint: string;
  private readonly caller: Caller;
  private readonly encryptionKey: Redacted | undefined;

  constructor(opts: SvcClientOptions) {
    // A list of endpoints (`http://a,http://b`): URLs are built on the first, and the Caller
    // sends each request to the preferred node of its list (failover.ts).
    const accounts = endpointList(opts.accountEndpoint).map((e) => normalizeEndpoint(e, "account endpoint"));
    const basins = endpointList(opts.basinEndpoint).map((e) => normalizeEndpoint(e, "basin endpoint"));
    this.accountBase = accounts[0] ?? normalizeEndpoint(opts.accountEndpoint, "account endpoint");
    this.basinEndpoint = basins[0] ?? normalizeEndpoint(opts.basinEndpoint, "basin endpoint");
    const same = accounts.join(",") === basins.join(",");
    const failover = new Failover(same ? [accounts] : [accounts, basins]);
    const { accountEndpoint: _a, basinEndpoint: _b, accessToken, encryptionKey, liteProof, ...callerOptions } = opts;
    this.encryptionKey = encryptionKey === undefined ? undefined : Redacted.from(encryptionKey);
    const token = Redacted.from(accessToken);
    const peerCheck = token && liteProof ? liteProofCheck(token, liteProof) : undefined;
    this.caller = new Caller({
      ...callerOptions,
      accessToken: token,
      ...(peerCheck ? { peerCheck } : {}),
      ...(failover.active ? { failover } : {}),
    });
    this.basins = new BasinsApi(this.caller, this.accountBase);
    this.accessTokens = new AccessTokensApi(this.caller, this.accountBase);
    this.metrics = new MetricsApi(this.caller, this.accountBase);
    this.locations = new LocationsApi(this.caller, this.accountBase);
    this.server = new PingApi(this.caller, this.accountBase);
  }

  /** The names this client's requests use (caller.ts). */
  get dialect(): Dialect {
    return this.caller.dialect;
  }

  basin(name: string): BasinClient {
    checkName("basin", name, clientFail("usage"));
    const route = basinRoute(this.basinEndpoint, this.accountBase, name);
    if (this.encryptionKey) route.headers = { ...route.headers, "svc-encryption-key": this.encryptionKey.reveal() };
    return new BasinClient(this.caller, route, name);
  }

  close(): Promise<void> {
    return this.caller.close();
  }
}

export class BasinClient {
  readonly streams: StreamsApi;

  constructor(
    private readonly caller: Caller,
    readonly route: BasinRoute,
    readonly name: string,
  ) {
    this.streams = new StreamsApi(caller, route);
  }

  stream(name: string): StreamClient {
    return new StreamClient(this.caller, this.route, name, this.name);
  }
}
