/**
 * The client's one road to the network. Every request, unary or session, goes through a
 * Caller, which applies the settings in one place:
 * - headers: user agent, bearer token, and any extra per-request headers (`headers`);
 * - the dialect: code above writes svc's header names; with `dialect: "s2"` every request
 *   goes out, and every answer is read, with S2's names instead (wire/dialect.ts);
 * - per-attempt timeout, retries and back-off (transport/retry.ts), TLS and `insecure`;
 * - session compression (Accept-Encoding, and the frames we send);
 * - verbose logging, one line per attempt, never a header (so never the token).
 * It owns the connection pools (unary keep-alive agents, HTTP/2 sessions) for the client's
 * lifetime: `close()` closes them. The transports load lazily (undici and node:http2 cost
 * start-up time, and `svc --help` must not pay it).
 */
import { clientError } from "../errors.js";
import { sleep } from "../sleep.js";
import { backoffDelay } from "../transport/retry.js";
import type { SessionPool } from "../transport/session.js";
import type { SessionExchange } from "../transport/session-exchange.js";
import type { HttpRequest, HttpResponse, PeerCheck, Transport } from "../transport/types.js";
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from "../transport/types.js";
import type { Dialect } from "../types.js";
import { headersFromDialect, headersInDialect } from "../wire/dialect.js";
import { parseJsonText } from "../wire/json.js";
import type { ClientCallOptions, SessionCompression } from "./call-options.js";
import { type Failover, movable } from "./failover.js";
import type { Redacted } from "./redacted.js";

/** What a Caller is made with: the user's options, and what the client itself sets up. */
export interface CallerOptions extends ClientCallOptions {
  accessToken?: Redacted;
  /** A ready transport (tests); otherwise one is created on first use. */
  transport?: Transport;
  /** Every new connection's server must pass this before a request goes over it (the default lite's root token). */
  peerCheck?: PeerCheck;
  /** Several endpoints: where each request goes, and where it may go next (failover.ts). */
  failover?: Failover;
}

interface JsonRequest {
  method: HttpRequest["method"];
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  idempotent: boolean;
  /** Aborts the request (it fails `interrupted`, and is neither retried nor sent elsewhere). */
  signal?: AbortSignal;
}

interface JsonResponse<T> {
  status: number;
  headers: Record<string, string>;
  data: T;
}

interface SessionCall {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  /** Keep the request body open for writes (append sessions). */
  duplex: boolean;
}

/** The settings sessions apply above the transport: retries, ack idle bound, compression. */
interface SessionPolicy {
  timeoutMs: number;
  retries: number;
  ackTimeoutMs: number;
  compression: SessionCompression;
}

export class Caller {
  private transport: Transport | undefined;
  private loading: Promise<Transport> | undefined;
  private pool: Promise<SessionPool> | undefined;
  readonly policy: SessionPolicy;
  readonly dialect: Dialect;

  constructor(private readonly opts: CallerOptions) {
    this.transport = opts.transport;
    this.dialect = opts.dialect ?? "svc";
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.policy = {
      timeoutMs,
      retries: opts.retries ?? DEFAULT_RETRIES,
      ackTimeoutMs: opts.ackTimeoutMs ?? timeoutMs,
      compression: opts.compression ?? "none",
    };
  }

  private async getTransport(): Promise<Transport> {
    if (this.transport) return this.transport;
    this.loading ??= import("../transport/create.js")
      .then(({ createTransport }) =>
        createTransport({
          client: this.opts.httpClient,
          timeoutMs: this.policy.timeoutMs,
          retries: this.policy.retries,
          insecure: this.opts.insecure,
          log: this.opts.log,
          headers: () => this.baseHeaders(),
          ...(this.opts.peerCheck ? { peerCheck: this.opts.peerCheck } : {}),
        }),
      )
      .then((t) => (this.transport = t));
    return this.loading;
  }

  /** Headers every request carries; names lower-case, values never logged. */
  private baseHeaders(): Record<string, string> {
    const h: Record<string, string> = {
      "user-agent": this.opts.userAgent ?? "svc",
      ...headersInDialect(lowerCaseKeys(this.opts.headers?.() ?? {}), this.dialect),
    };
    const token = this.opts.accessToken?.reveal();
    if (token) h.authorization = `Bearer ${token}`;
    return h;
  }

  /**
   * A raw unary request (binary bodies, protobuf). Headers of `opts.transport` tests are merged
   * here too. Request headers (lower-case names) go out in the dialect; the answer's come back in svc's.
   */
  async raw(req: HttpRequest): Promise<HttpResponse> {
    const t = await this.getTransport();
    const own = req.headers && headersInDialect(req.headers, this.dialect);
    const headers = this.opts.transport ? { ...this.baseHeaders(), ...own } : own;
    const res = await this.onNodes(
      req.url,
      req.idempotent,
      (url, alone) => t.request({ ...req, url, headers, ...(alone ? {} : { moveOnConnectFailure: true }) }),
      this.policy.retries,
      req.signal,
    );
    return this.dialect === "svc" ? res : { ...res, headers: headersFromDialect(res.headers, this.dialect) };
  }

  /**
   * `send` to the preferred node of `url`'s endpoint list, then, while its failure is one that
   * may be tried elsewhere (failover.ts `movable`), to the next; one node: just `send(url)`.
   * `alone` tells `send` whether `url` is its only node (then the transport retries as usual);
   * with several, a node that refuses the connection costs one attempt, and the next is tried
   * at once. `rounds` more passes over the list, with the retry backoff before each, follow
   * when every node failed to connect: the retries are for when no node answers at all (a node
   * that answered with a retryable failure had the transport's own retries already).
   */
  private async onNodes<T>(
    url: string,
    idempotent: boolean,
    send: (url: string, alone: boolean) => Promise<T>,
    rounds = 0,
    signal?: AbortSignal,
  ): Promise<T> {
    const f = this.opts.failover;
    if (!f) return send(url, true);
    for (let round = 0; ; round++) {
      const urls = f.candidates(url);
      let unreached = true;
      for (let k = 0; k < urls.length; k++) {
        try {
          const res = await send(urls[k]!, urls.length === 1);
          f.answered(urls[k]!);
          return res;
        } catch (e) {
          if (urls.length === 1 || !movable(e, idempotent)) throw e;
          const code = (e as { code?: string }).code ?? "error";
          if (code !== "connect_failed") unreached = false;
          f.failed(urls[k]!);
          if (k + 1 < urls.length) {
            this.opts.log?.(`node ${f.node(urls[k]!)} failed (${code}); trying ${f.node(urls[k + 1]!)}`);
            continue;
          }
          if (!unreached || round >= rounds || signal?.aborted) throw e;
          const delay = backoffDelay(round, undefined, (e as { retryAfterMs?: number }).retryAfterMs);
          this.opts.log?.(`no node could be reached; retry ${round + 1}/${rounds} in ${delay} ms`);
          await sleep(delay, signal);
        }
      }
    }
  }

  /** The URLs `url` may be sent to, in the endpoint list's order (one unless endpoints are a list). */
  nodes(url: string): string[] {
    return this.opts.failover?.listed(url) ?? [url];
  }

  /** A unary request to exactly `req.url`, on no other node (`svc ping` asks each node). */
  async rawAt(req: HttpRequest): Promise<HttpResponse> {
    const t = await this.getTransport();
    const headers = req.headers && headersInDialect(req.headers, this.dialect);
    return t.request({ ...req, headers });
  }

  async json<T>(req: JsonRequest): Promise<JsonResponse<T>> {
    const headers: Record<string, string> = { accept: "application/json", ...req.headers };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers["content-type"] = "application/json";
    }
    const res = await this.raw({
      method: req.method,
      url: req.url,
      headers,
      body,
      idempotent: req.idempotent,
      ...(req.signal ? { signal: req.signal } : {}),
    });
    return { status: res.status, headers: res.headers, data: decodeJson(res.body) as T };
  }

  /**
   * Opens one session exchange (HTTP/2) with the base headers and Accept-Encoding, bounded
   * by the timeout. One attempt: sessions decide what is safe to retry (they know what
   * they have sent) with `policy.retries` and transport/retry.ts.
   */
  async session(call: SessionCall): Promise<SessionExchange> {
    this.pool ??= import("../transport/session.js").then(
      ({ SessionPool }) =>
        new SessionPool({
          insecure: this.opts.insecure,
          log: this.opts.log,
          ...(this.opts.peerCheck ? { peerCheck: this.opts.peerCheck } : {}),
        }),
    );
    const pool = await this.pool;
    const compression = this.policy.compression;
    if (compression === "zstd") await (await import("../wire/compression.js")).zstdReady();
    const headers = {
      ...this.baseHeaders(),
      ...(compression === "none" ? {} : { "accept-encoding": compression }),
      ...headersInDialect(lowerCaseKeys(call.headers ?? {}), this.dialect),
    };
    // Nothing is sent on a session before it opens: a failure to open it may go to another node.
    return this.onNodes(call.url, true, (url) =>
      pool.open({ url, method: call.method, duplex: call.duplex, timeoutMs: this.policy.timeoutMs, headers }),
    );
  }

  /** Tells the user something once (stderr in the CLI); never a secret. */
  notice(line: string): void {
    this.opts.notice?.(line);
  }

  /** Verbose log line (a reconnect, a retry). */
  log(line: string): void {
    this.opts.log?.(line);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (pool) (await pool).close();
    if (this.transport && !this.opts.transport) await this.transport.close();
  }
}

function lowerCaseKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

function decodeJson(body: Uint8Array): unknown {
  if (body.length === 0) return undefined;
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  try {
    return parseJsonText(text);
  } catch (e) {
    throw clientError("protocol", `the server sent a malformed JSON body: ${(e as Error).message}`, e);
  }
}
