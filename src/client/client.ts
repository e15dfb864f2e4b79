/**
 * SvcClient: the typed API. Its tree mirrors the URL tree: account-level `basins`,
 * `accessTokens`, `metrics` and `locations`; `server` for `GET /ping`; `basin(name)` for basin-level `streams`;
 * `basin(name).stream(name)` for one stream's data plane. Creating a client does no I/O and loads no network library.
 */
import { clientFail } from "../errors.js";
import { checkName } from "../rules/names.js";
import type { Transport } from "../transport/types.js";
import type { Dialect } from "../types.js";
import { AccessTokensApi } from "./access-tokens.js";
import { BasinsApi } from "./basins.js";
import type { ClientCallOptions } from "./call-options.js";
import { Caller } from "./caller.js";
import { type BasinRoute, basinRoute, normalizeEndpoint } from "./endpoints.js";
import { endpointList, Failover } from "./failover.js";
import { type LiteProofOptions, liteProofCheck } from "./lite-proof.js";
import { LocationsApi } from "./locations.js";
import { MetricsApi } from "./metrics.js";
import { PingApi } from "./ping.js";
import { Redacted } from "./redacted.js";
import { StreamClient } from "./stream.js";
import { StreamsApi } from "./streams.js";

/**
 * What `new SvcClient(...)` takes: only the documented options (docs/library.md, "Options and
 * their defaults"). The client's internals (its transport, the failover between endpoints,
 * the check a connection's server must pass) are not options: the client makes them.
 */
export interface SvcClientOptions extends ClientCallOptions {
  /** e.g. `http://127.0.0.1:4243` or `https://a.example/v1`; a comma-separated list for several nodes. */
  accountEndpoint: string;
  /** The same as the account endpoint (direct routing) or `https://{basin}.b.example`. */
  basinEndpoint: string;
  /** Sent as `Authorization: Bearer …`; never printed. @default none */
  accessToken?: string | Redacted;
  /** §8.8: sent as `svc-encryption-key` on every basin-level request. @default none */
  encryptionKey?: string | Redacted | undefined;
}

/** What svc's own code may give a client besides its options: a key no options object of a user holds. */
const INTERNALS = Symbol("svc.clientInternals");

/** Not options (not public): set by svc's CLI and tests through `withInternals`. */
export interface ClientInternals {
  /**
   * The token goes only to a server that proves it is the default local lite (lite-proof.ts):
   * the CLI's, with a token it found in lite's data dir.
   */
  liteProof?: LiteProofOptions;
  /** A ready transport (tests: undici's MockAgent); otherwise one is created on first use. */
  transport?: Transport;
}

/** `opts` carrying `internals` to the SvcClient made from it. */
export function withInternals(opts: SvcClientOptions, internals: ClientInternals): SvcClientOptions {
  return Object.assign({ [INTERNALS]: internals }, opts);
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
    // The internals are taken out too: the Caller keeps its options, and the lite proof holds a secret.
    const {
      [INTERNALS]: internals,
      accountEndpoint: _a,
      basinEndpoint: _b,
      accessToken,
      encryptionKey,
      ...callerOptions
    } = opts as SvcClientOptions & { [INTERNALS]?: ClientInternals };
    const { liteProof, transport } = internals ?? {};
    this.encryptionKey = encryptionKey === undefined ? undefined : Redacted.from(encryptionKey);
    const token = Redacted.from(accessToken);
    const peerCheck = token && liteProof ? liteProofCheck(token, liteProof) : undefined;
    this.caller = new Caller({
      ...callerOptions,
      accessToken: token,
      ...(peerCheck ? { peerCheck } : {}),
      ...(transport ? { transport } : {}),
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

  /** @internal made by SvcClient.basin(), not by its users */
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
