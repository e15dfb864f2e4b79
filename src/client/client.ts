/**
 * SvcClient: the typed API. Its tree mirrors the URL tree: account-level `basins` and
 * `accessTokens`; `basin(name)` for basin-level `streams`; `basin(name).stream(name)` for one
 * stream's data plane. Creating a client does no I/O and loads no network library.
 */
import type { Transport } from "../transport/index.js";
import { AccessTokensApi } from "./access-tokens.js";
import { BasinsApi } from "./basins.js";
import { Caller } from "./caller.js";
import { basinRoute, normalizeEndpoint, type BasinRoute } from "./endpoints.js";
import { assertBasinName } from "./names.js";
import { Redacted } from "./redacted.js";
import { StreamClient } from "./stream.js";
import { StreamsApi } from "./streams.js";

export interface SvcClientOptions {
  /** e.g. `http://127.0.0.1:4243` or `https://a.example/v1`. */
  accountEndpoint: string;
  /** The same as the account endpoint (direct routing) or `https://{basin}.b.example`. */
  basinEndpoint: string;
  accessToken?: string | Redacted;
  /** Per-attempt timeout in ms (default 30 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  retries?: number;
  insecure?: boolean;
  userAgent?: string;
  /** Verbose request log (token never included). */
  log?: (line: string) => void;
  /** Unary HTTP client: node:http (default, cheap to load in one-shot processes) or undici. */
  httpClient?: "node" | "undici";
  /** Session compression: advertised in Accept-Encoding and used for our own frames (default none). */
  compression?: "none" | "zstd" | "gzip";
  transport?: Transport;
}

export class SvcClient {
  readonly basins: BasinsApi;
  readonly accessTokens: AccessTokensApi;
  readonly accountBase: string;
  readonly basinEndpoint: string;
  private readonly caller: Caller;

  constructor(opts: SvcClientOptions) {
    this.accountBase = normalizeEndpoint(opts.accountEndpoint, "account endpoint");
    this.basinEndpoint = normalizeEndpoint(opts.basinEndpoint, "basin endpoint");
    this.caller = new Caller({
      accessToken: Redacted.from(opts.accessToken),
      timeoutMs: opts.timeoutMs,
      retries: opts.retries,
      insecure: opts.insecure,
      userAgent: opts.userAgent,
      log: opts.log,
      httpClient: opts.httpClient,
      compression: opts.compression,
      transport: opts.transport,
    });
    this.basins = new BasinsApi(this.caller, this.accountBase);
    this.accessTokens = new AccessTokensApi(this.caller, this.accountBase);
  }

  basin(name: string): BasinClient {
    assertBasinName(name);
    return new BasinClient(this.caller, basinRoute(this.basinEndpoint, this.accountBase, name), name);
  }

  close(): Promise<void> {
    return this.caller.close();
  }
}

export class BasinClient {
  readonly streams: StreamsApi;

  constructor(private readonly caller: Caller, readonly route: BasinRoute, readonly name: string) {
    this.streams = new StreamsApi(caller, route);
  }

  stream(name: string): StreamClient {
    return new StreamClient(this.caller, this.route, name);
  }
}
