/**
 * Full-duplex streaming exchanges over HTTP/2: h2c with prior knowledge for `http://`
 * endpoints, h2 over TLS for `https://` (protocol.md §6.1). It moves bytes only; framing and
 * records live above it. Response data is delivered while the request body is still being
 * written, which is what append sessions need.
 *
 * A `SessionPool` belongs to one client and lives as long as it: a connection per origin, and
 * another once that one carries as many exchanges as its server allows at once
 * (session-lanes.ts): past that, Node would hold a new exchange
 * unsent until one ends, so a follow of many streams (`svc tail -f` of a pattern) silently
 * followed only the first ones. Connections are opened with 2 MiB stream / 16 MiB connection
 * windows (with the 64 KiB defaults a session
 * runs at about half speed, and a stream window smaller than two full 1 MiB frames makes every
 * input wait for a window update: docs/design/performance.md, "HTTP/2 flow-control windows").
 * `close()` closes them all.
 *
 * `open` is bounded by one deadline, connect and response headers together, and resolves
 * only with a 2xx exchange: any other status is read and thrown as the SvcError it describes.
 * A server that does not speak HTTP/2 (it answers the connection preface with an HTTP/1.1
 * response, or its TLS offers no h2) is `not_the_service` (WrongHttpError), as unary calls
 * judge an answer that is not the service's: it is not retried, and nothing is in doubt.
 */
import http2 from "node:http2";
import { clientError, SvcError, WrongHttpError } from "../errors.js";
import { logAttempt, monotonicMs } from "./attempt-log.js";
import { networkError } from "./network-error.js";
import { checkPeer } from "./peer-check.js";
import { responseError } from "./response-error.js";
import { exchange, readAll, type SessionExchange, waitForResponse } from "./session-exchange.js";
import { Lanes, type Place } from "./session-lanes.js";
import { DEFAULT_TIMEOUT_MS, MAX_TIMER_MS, type PeerCheck } from "./types.js";

const STREAM_WINDOW = 2 * 1024 * 1024;
const CONNECTION_WINDOW = 16 * 1024 * 1024;

interface SessionPoolOptions {
  /** Skip TLS certificate verification (`https://` only). */
  insecure?: boolean;
  /** Verbose log sink: one line per opened exchange (never headers, so never a token). */
  log?: (line: string) => void;
  /** Every new connection's server must pass this before a session opens on it (peer-check.ts). */
  peerCheck?: PeerCheck;
}

interface SessionRequest {
  /** Full URL: origin, path and query. */
  url: string;
  method: "GET" | "POST";
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Keep the request body open for writes (append sessions). */
  duplex?: boolean;
  /** Milliseconds for connecting and receiving the response headers, together. */
  timeoutMs?: number;
}

/** A protocol error before the server's SETTINGS: what it sent was not HTTP/2. */
const PREFACE_ANSWERED_OTHERWISE =
  "it answered the HTTP/2 connection preface with something else (an HTTP/1.1 response?)";

export class SessionPool {
  /** By lane: an origin's connections are lanes 0, 1, … (session-lanes.ts). */
  private readonly connections = new Map<string, Promise<http2.ClientHttp2Session>>();
  private readonly lanes = new Lanes();
  private readonly openStreams = new WeakMap<http2.ClientHttp2Session, number>();
  /** Connections whose server sent its SETTINGS: it speaks HTTP/2. */
  private readonly spoke = new WeakSet<http2.ClientHttp2Session>();

  constructor(private readonly opts: SessionPoolOptions = {}) {}

  /** Opens an exchange and waits for its response headers; rejects with an SvcError otherwise. */
  async open(req: SessionRequest): Promise<SessionExchange> {
    const started = monotonicMs();
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const url = new URL(req.url);
    let place = this.lanes.take(url.origin);
    let session: http2.ClientHttp2Session | undefined;
    let handed = false;
    try {
      session = await this.connect(place.lane, url.origin, timeoutMs, req.url);
      // Taken before the lane's server said its limit, and past it: another lane, or Node
      // would hold the exchange unsent until one of the connection's streams ends.
      while (!this.lanes.fits(place)) {
        this.lanes.giveBack(place);
        place = this.lanes.take(url.origin);
        session = await this.connect(place.lane, url.origin, Math.max(1, deadline - Date.now()), req.url);
      }
      const exchange = await this.request(place, session, url, req, Math.max(1, deadline - Date.now()), timeoutMs);
      handed = true;
      logAttempt(this.opts.log, req, 0, started, String(exchange.status), " (session)");
      return exchange;
    } catch (e) {
      let err = e instanceof SvcError ? e : networkError(e, req.url, false, timeoutMs);
      // A protocol error before the server's SETTINGS: what it sent was not HTTP/2.
      if (session !== undefined && !this.spoke.has(session) && causeCode(err) === "ERR_HTTP2_ERROR")
        err = noHttp2(req.url, PREFACE_ANSWERED_OTHERWISE, err);
      logAttempt(
        this.opts.log,
        req,
        0,
        started,
        err.status !== undefined ? String(err.status) : err.code,
        " (session)",
      );
      throw err;
    } finally {
      // An exchange handed out gives its place back when its stream closes (request()).
      if (!handed) this.lanes.giveBack(place);
    }
  }

  /** Closes every connection; exchanges still open end with an error. */
  close(): void {
    const all = [...this.connections.values()];
    this.connections.clear();
    this.lanes.clear();
    for (const p of all)
      void p.then(
        (s) => s.destroy(),
        () => undefined,
      );
  }

  private connect(lane: string, origin: string, timeoutMs: number, url: string): Promise<http2.ClientHttp2Session> {
    const existing = this.connections.get(lane);
    if (existing) {
      return existing.then((s) => {
        if (!s.closed && !s.destroyed) return s;
        if (this.connections.get(lane) === existing) this.connections.delete(lane);
        return this.connect(lane, origin, timeoutMs, url);
      });
    }
    const connecting = new Promise<http2.ClientHttp2Session>((resolve, reject) => {
      const session = http2.connect(origin, {
        settings: { initialWindowSize: STREAM_WINDOW },
        rejectUnauthorized: !this.opts.insecure,
      });
      const forget = (): void => {
        if (this.connections.get(lane) !== connecting) return;
        this.connections.delete(lane);
        this.lanes.gone(lane);
      };
      const timer = setTimeout(
        () => {
          forget();
          session.destroy();
          reject(this.notUp(session, undefined, url, timeoutMs));
        },
        Math.min(MAX_TIMER_MS, timeoutMs),
      );
      const fail = (err: Error): void => {
        clearTimeout(timer);
        forget();
        reject(this.notUp(session, err, url, timeoutMs));
      };
      session.once("error", fail);
      session.once("remoteSettings", () => this.spoke.add(session));
      // Up once connected and its server's SETTINGS came (they say how many streams it takes).
      session.once("connect", () => {
        if (this.spoke.has(session)) connected();
        else session.once("remoteSettings", connected);
      });
      const connected = (): void => {
        const ready = (): void => {
          clearTimeout(timer);
          session.off("error", fail);
          session.on("error", forget);
          session.setLocalWindowSize(CONNECTION_WINDOW);
          session.unref();
          if (this.connections.get(lane) === connecting) this.lanes.up(lane, session);
          resolve(session);
        };
        if (!this.opts.peerCheck) {
          ready();
          return;
        }
        checkPeer(session, origin, this.opts.peerCheck).then(ready, (e: Error) => {
          clearTimeout(timer);
          forget();
          session.destroy();
          reject(e);
        });
      };
      // Closed before it came up (a proxy with nothing behind it): no 'error' follows then.
      session.once("close", () => {
        clearTimeout(timer);
        forget();
        reject(this.notUp(session, new Error("the server closed the connection before its SETTINGS"), url, timeoutMs));
      });
      session.once("goaway", forget);
    });
    this.connections.set(lane, connecting);
    return connecting;
  }

  /** Why a new connection did not come up: `err`, or the deadline when undefined. Nothing was sent over it. */
  private notUp(session: http2.ClientHttp2Session, err: Error | undefined, url: string, timeoutMs: number): SvcError {
    // Connected, and silent since (no SETTINGS): the server did not answer, as a silent server
    // answers no request.
    if (err === undefined)
      return session.connecting
        ? networkError(new Error("connect timeout"), url, true, timeoutMs, false)
        : clientError("client_timeout", `no response from ${new URL(url).origin} within ${timeoutMs} ms`);
    const code = causeCode(err);
    if (code === "ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL")
      return noHttp2(url, "its TLS does not offer HTTP/2 (no h2 in ALPN)", err);
    if (code === "ERR_HTTP2_ERROR" && !this.spoke.has(session)) return noHttp2(url, PREFACE_ANSWERED_OTHERWISE, err);
    return networkError(err, url, false, timeoutMs, false);
  }

  private drop(lane: string, session: http2.ClientHttp2Session): void {
    const current = this.connections.get(lane);
    void current?.then(
      (s) => {
        if (s !== session || this.connections.get(lane) !== current) return;
        this.connections.delete(lane);
        this.lanes.gone(lane);
      },
      () => undefined,
    );
    session.destroy();
  }

  private async request(
    place: Place,
    session: http2.ClientHttp2Session,
    url: URL,
    req: SessionRequest,
    waitMs: number,
    timeoutMs: number,
  ): Promise<SessionExchange> {
    // The connection keeps the process alive only while one of its streams is open.
    this.openStreams.set(session, (this.openStreams.get(session) ?? 0) + 1);
    session.ref();
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request(
        { ...req.headers, ":method": req.method, ":path": url.pathname + url.search },
        { endStream: !req.duplex },
      );
    } catch (e) {
      this.drop(place.lane, session);
      throw networkError(e, req.url, false, timeoutMs);
    }
    stream.once("close", () => {
      this.lanes.giveBack(place);
      const left = (this.openStreams.get(session) ?? 1) - 1;
      this.openStreams.set(session, left);
      if (left === 0 && !session.destroyed) session.unref();
    });
    let headers: http2.IncomingHttpHeaders;
    try {
      headers = await waitForResponse(stream, req.url, waitMs, timeoutMs);
    } catch (e) {
      // A server that does not answer in time has a silent connection: do not reuse it.
      if ((e as SvcError).code === "client_timeout") this.drop(place.lane, session);
      throw e;
    }
    const status = Number(headers[":status"] ?? 0);
    if (status < 200 || status > 299) {
      let body: Uint8Array;
      try {
        body = await readAll(stream, req.url);
      } catch (e) {
        if (e instanceof SvcError && e.code === "too_large") throw e;
        body = new Uint8Array(0);
      }
      throw responseError({ status, headers, body }, req.url);
    }
    return exchange(stream, headers, req.url, () => this.drop(place.lane, session));
  }
}

/** The code of `e` or of the first error in its causes that has one (`ERR_HTTP2_ERROR`). */
function causeCode(e: unknown): string | undefined {
  for (let c = e, depth = 0; typeof c === "object" && c !== null && depth < 5; depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_")) return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A server at `url` that does not speak HTTP/2, `how` we know. */
function noHttp2(url: string, how: string, cause: unknown): WrongHttpError {
  return new WrongHttpError(
    `the server at ${new URL(url).origin} does not speak HTTP/2, which sessions need: ${how}; it is not the Stream Storage Service, or a proxy in front of it passes HTTP/1.1 only`,
    "HTTP/2",
    cause,
  );
}
