/**
 * Unary HTTP requests over undici with keep-alive (one connection pool per origin).
 *
 * For long-lived processes. A one-shot CLI run pays ~150 ms to import undici and more to tear
 * down its WASM parser, so the CLI defaults to node-http.ts; both implement `Transport`.
 */
import { Agent, type buildConnector, type Dispatcher } from "undici";
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

interface HttpTransportOptions extends TransportOptions {
  /** A ready dispatcher (tests pass undici's MockAgent); an Agent with keep-alive otherwise. */
  dispatcher?: Dispatcher;
}

export class HttpTransport implements Transport {
  private readonly agent: Dispatcher;
  private readonly timeoutMs: number;
  private readonly retries: number;

  constructor(private readonly opts: HttpTransportOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = opts.retries ?? DEFAULT_RETRIES;
    const check = opts.peerCheck;
    this.agent =
      opts.dispatcher ??
      new Agent({
        keepAliveTimeout: 10_000,
        connect: check
          ? provenConnector(check, Math.min(this.timeoutMs, 10_000))
          : { timeout: Math.min(this.timeoutMs, 10_000), rejectUnauthorized: !opts.insecure },
      });
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

  private async once(req: HttpRequest, attempt: number): Promise<HttpResponse> {
    const started = monotonicMs();
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    if (req.signal?.aborted) controller.abort();
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        controller.abort();
      },
      Math.min(MAX_TIMER_MS, this.timeoutMs),
    );
    const headers: Record<string, string> = { ...this.opts.headers?.(), ...req.headers };
    if (req.body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
    let res: HttpResponse;
    try {
      const url = new URL(req.url);
      const r = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers,
        body: req.body,
        signal: controller.signal,
      });
      res = {
        status: r.statusCode,
        headers: flatHeaders(r.headers),
        body: await readCapped(r.body, r.headers, req.url),
      };
    } catch (e) {
      const err =
        e instanceof TypeError && /Invalid URL/.test(e.message)
          ? clientError("usage", `invalid URL ${req.url}`)
          : req.signal?.aborted
            ? aborted(req.url)
            : networkError(e, req.url, timedOut, this.timeoutMs);
      logAttempt(this.opts.log, req, attempt, started, err.code);
      throw err;
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    }
    logAttempt(this.opts.log, req, attempt, started, String(res.status));
    if (res.status >= 200 && res.status < 300) return res;
    throw responseError(res, req.url);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** The whole body, or `too_large` (and the connection dropped) past MAX_RESPONSE_BYTES. */
async function readCapped(
  body: Dispatcher.ResponseData["body"],
  headers: Record<string, string | string[] | undefined>,
  url: string,
): Promise<Uint8Array> {
  if (announcesTooMuch(headers)) {
    body.destroy();
    throw responseTooLarge(url);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw responseTooLarge(url);
    }
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks, size));
}

/** undici's connector for a server that must pass `check` on every new connection (http: only). */
function provenConnector(check: PeerCheck, timeoutMs: number): buildConnector.connector {
  return (opts, done) => {
    if (opts.protocol !== "http:") {
      done(
        clientError("usage", `a server check is made over http: only, not ${opts.protocol}//${opts.hostname}`),
        null,
      );
      return;
    }
    provenConnection(opts.hostname, Number(opts.port || 80), check, timeoutMs).then(
      (s) => done(null, s),
      (e: Error) => done(e, null),
    );
  };
}
