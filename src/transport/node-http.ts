/**
 * Unary HTTP requests over node:http / node:https with a keep-alive agent: the CLI's default
 * transport, because it costs nothing to load (docs/design/performance.md, "CLI start-up": one
 * POST in a fresh process took 74 ms with node:http against 376 ms with undici, import and
 * teardown included).
 *
 * A failure before the socket connected is `connect_failed` (nothing was sent, always safe to
 * retry); after that, our deadline is `client_timeout` and anything else `network` (outcome unknown).
 */
import type { ClientRequest, Agent as HttpAgent, IncomingMessage, RequestOptions } from "node:http";
import * as http from "node:http";
import type { Socket } from "node:net";
import { clientError } from "../errors.js";
import { flatHeaders, logAttempt, monotonicMs } from "./attempt-log.js";
import { aborted, networkError } from "./network-error.js";
import { provenConnection } from "./peer-check.js";
import { announcesTooMuch, responseError, responseTooLarge } from "./response-error.js";
import { withRetries } from "./retry.js";
import {
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type HttpRequest,
  type HttpResponse,
  MAX_RESPONSE_BYTES,
  MAX_TIMER_MS,
  type PeerCheck,
  type Transport,
  type TransportOptions,
} from "./types.js";

type Requester = (opts: RequestOptions, cb: (res: IncomingMessage) => void) => ClientRequest;

export class NodeHttpTransport implements Transport {
  private readonly timeoutMs: number;
  private readonly retries: number;
  private httpAgent: HttpAgent | undefined;
  private https: Promise<{ request: Requester; agent: HttpAgent }> | undefined;

  constructor(private readonly opts: TransportOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = opts.retries ?? DEFAULT_RETRIES;
  }

  request(req: HttpRequest): Promise<HttpResponse> {
    return withRetries((attempt) => this.once(req, attempt), {
      retries: this.retries,
      idempotent: req.idempotent,
      moveOnConnectFailure: req.moveOnConnectFailure === true,
      onRetry: (n, delay, e) =>
        this.opts.log?.(`retry ${n}/${this.retries} in ${delay} ms after ${e.code}${e.status ? ` (${e.status})` : ""}`),
    });
  }

  /**
   * The keep-alive agent of an origin. Its connections are not capped: a unary read waiting at the
   * tail holds one for up to 60 s, and a cap made every other request queue behind such reads.
   */
  private async client(url: URL): Promise<{ request: Requester; agent: HttpAgent }> {
    if (url.protocol === "http:") {
      this.httpAgent ??= this.opts.peerCheck
        ? provenAgent(this.opts.peerCheck, this.timeoutMs)
        : new http.Agent({ keepAlive: true });
      return { request: http.request, agent: this.httpAgent };
    }
    if (url.protocol !== "https:") throw clientError("usage", `unsupported URL scheme ${url.protocol} in ${url.href}`);
    if (this.opts.peerCheck) throw clientError("usage", `a server check is made over http: only, not ${url.href}`);
    // node:https pulls in TLS; load it only for https endpoints.
    this.https ??= import("node:https").then((https) => ({
      request: https.request,
      agent: new https.Agent({ keepAlive: true, rejectUnauthorized: !this.opts.insecure }),
    }));
    return this.https;
  }

  private async once(req: HttpRequest, attempt: number): Promise<HttpResponse> {
    const started = monotonicMs();
    const url = new URL(req.url);
    const { request, agent } = await this.client(url);
    const headers: Record<string, string> = { ...this.opts.headers?.(), ...req.headers };
    const body = typeof req.body === "string" ? Buffer.from(req.body, "utf8") : req.body;
    if (body !== undefined) {
      headers["content-type"] ??= "application/json";
      headers["content-length"] = String(body.byteLength);
    }
    let res: HttpResponse;
    try {
      res = await this.exchange(request, agent, url, req, headers, body);
    } catch (e) {
      const err = e as ReturnType<typeof networkError>;
      logAttempt(this.opts.log, req, attempt, started, err.code);
      throw err;
    }
    logAttempt(this.opts.log, req, attempt, started, String(res.status));
    if (res.status >= 200 && res.status < 300) return res;
    throw responseError(res, req.url);
  }

  private exchange(
    request: Requester,
    agent: HttpAgent,
    url: URL,
    req: HttpRequest,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
  ): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      let connected = false;
      let timedOut = false;
      const fail = (e: unknown) => {
        clearTimeout(timer);
        req.signal?.removeEventListener("abort", onAbort);
        reject(req.signal?.aborted ? aborted(req.url) : networkError(e, req.url, timedOut, this.timeoutMs, connected));
      };
      const onAbort = (): void => void r.destroy(new Error("aborted"));
      const r = request(
        {
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: req.method,
          headers,
          agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const tooLarge = (): void => {
            res.removeAllListeners("data");
            r.destroy();
            fail(responseTooLarge(req.url));
          };
          if (announcesTooMuch(res.headers)) return tooLarge();
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) return tooLarge();
            chunks.push(c);
          });
          res.on("error", fail);
          res.on("end", () => {
            clearTimeout(timer);
            req.signal?.removeEventListener("abort", onAbort);
            resolve({
              status: res.statusCode ?? 0,
              headers: flatHeaders(res.headers),
              body: new Uint8Array(Buffer.concat(chunks)),
            });
          });
        },
      );
      const timer = setTimeout(
        () => {
          timedOut = true;
          r.destroy(Object.assign(new Error(`no response within ${this.timeoutMs} ms`), { code: "ETIMEDOUT" }));
        },
        Math.min(MAX_TIMER_MS, this.timeoutMs),
      );
      r.on("socket", (s) => {
        if (!s.connecting) connected = true;
        else
          s.once("connect", () => {
            connected = true;
          });
      });
      r.on("error", fail);
      if (req.signal?.aborted) onAbort();
      else req.signal?.addEventListener("abort", onAbort, { once: true });
      r.end(body);
    });
  }

  async close(): Promise<void> {
    this.httpAgent?.destroy();
    if (this.https) (await this.https).agent.destroy();
  }
}

/** A keep-alive agent whose every new connection first passed `check` (peer-check.ts). */
function provenAgent(check: PeerCheck, timeoutMs: number): HttpAgent {
  const agent = new http.Agent({ keepAlive: true });
  const make = (
    opts: { host?: string | null; port?: number | string | null },
    done: (err: Error | null, socket?: Socket) => void,
  ): undefined => {
    provenConnection(opts.host ?? "localhost", Number(opts.port ?? 80), check, timeoutMs).then(
      (s) => done(null, s),
      (e: Error) => done(e),
    );
    return undefined;
  };
  (agent as unknown as { createConnection: typeof make }).createConnection = make;
  return agent;
}
