/**
 * The listener: one net.Server whose connections are sniffed (sniff.ts) and handed to an
 * http.Server or an http2 server, both feeding the same router through one Exchange adapter.
 * Shutdown: stop accepting, end long-polls, let in-flight requests finish, close idle
 * connections and HTTP/2 sessions.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  createServer as createH2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from "node:http2";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { createServer as createTlsServer, type TLSSocket, type Server as TlsServer } from "node:tls";
import type { Auth } from "./auth/access.js";
import { Exchange } from "./http/exchange.js";
import { BODY_BYTES_PER_SECOND, type BodyPace } from "./http/request-body.js";
import { type CorsPolicy, route } from "./http/router.js";
import { UnsentAnswers } from "./http/unsent-answers.js";
import type { LiteMetrics } from "./metrics/lite-metrics.js";
import { AppendLimits } from "./session/append-limits.js";
import { DrainSignal } from "./session/io.js";
import { ReadLimits } from "./session/read-limits.js";
import { sniffProtocol } from "./sniff.js";
import type { Store } from "./store/store.js";

/**
 * HTTP/2 windows: at the 64 KiB default, sessions run at half speed (docs/design/performance.md,
 * "HTTP/2 flow-control windows");
 * a stream window must also hold two full 1 MiB frames, or a sender stalls on every input
 * (measured: 1 MiB windows 54k records/s, 2 MiB 99-127k, on 1000 x 1 KiB append sessions).
 */
const H2_INITIAL_WINDOW = 2 << 20;
const H2_SESSION_WINDOW = 16 << 20;

/**
 * Slow and idle clients: a connection must send its first bytes and then
 * a whole HTTP/1.1 request head within `headersMs`, or it is dropped (slowloris); an HTTP/2
 * connection with no frames either way for `idleMs` is closed (heartbeats of open read
 * sessions count as activity). A body read whole must arrive at the pace of
 * http/request-body.ts, `bodyGraceMs` then 8 KiB/s; an append session's body is not timed (it
 * streams for hours), and a body nobody reads is never waited for (http/exchange.ts). Their
 * defaults and variables: option-table.ts.
 */
export interface ServerTimeouts {
  headersMs: number;
  idleMs: number;
  bodyGraceMs: number;
  /** How long an append session's acks may wait unread (session/append-limits.ts). */
  ackStallMs: number;
  /** The longest a waiting read session goes without a message (session/read-pump.ts). */
  heartbeatMs: number;
}

/**
 * What one client may hold of the server (option-bounds.ts; docs/security.md says what each
 * protects): complete answers waiting to be sent (http/unsent-answers.ts), HTTP/2 streams per
 * connection, connections per address, read sessions per token and per connection
 * (session/read-limits.ts).
 */
export interface ServerBounds {
  answerFlushMs: number;
  unsentAnswers: number;
  h2MaxStreams: number;
  connectionsPerAddress: number;
  readSessionsPerToken: number;
  readSessionsPerConnection: number;
}

interface ServerDeps {
  store: Store;
  auth: Auth;
  cors: CorsPolicy;
  log: (msg: string) => void;
  timeouts: ServerTimeouts;
  bounds: ServerBounds;
  /** The in-flight append budget all sessions share, bytes (session/append-limits.ts). */
  appendBudgetBytes: number;
  /** Metrics (undefined with --no-metrics) and the server's one location. */
  metrics?: LiteMetrics | undefined;
  location: string;
  /** PEM certificate and key: TLS on the one port, HTTP/2 or HTTP/1.1 by ALPN. */
  tls?: { cert: string; key: string } | undefined;
}

export class LiteServer {
  private readonly net = createNetServer({ pauseOnConnect: false });
  private readonly http1;
  private readonly http2;
  private readonly drain = new DrainSignal();
  private readonly appendLimits: AppendLimits;
  private readonly readLimits: ReadLimits;
  private readonly sockets = new Set<Socket>();
  /** Open connections by client address. */
  private readonly perAddress = new Map<string, number>();
  private readonly sessions = new Set<Http2Session>();
  private inflight = 0;
  private idleWaiters: (() => void)[] = [];
  /** With TLS: does the handshake and hands each connection on by its ALPN protocol. */
  private readonly tls: TlsServer | undefined;

  constructor(deps: ServerDeps) {
    const { timeouts, bounds } = deps;
    this.http2 = createH2Server({
      settings: { initialWindowSize: H2_INITIAL_WINDOW, maxConcurrentStreams: bounds.h2MaxStreams },
    });
    this.readLimits = new ReadLimits(bounds.readSessionsPerToken, bounds.readSessionsPerConnection);
    const unsent = new UnsentAnswers(bounds.answerFlushMs, bounds.unsentAnswers);
    this.appendLimits = new AppendLimits(deps.appendBudgetBytes, timeouts.ackStallMs);
    this.http1 = createHttpServer({
      headersTimeout: timeouts.headersMs,
      requestTimeout: 0,
      connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(timeouts.headersMs / 4))),
    });
    // node:http enforces headersTimeout only for servers that emitted 'listening' (it starts
    // its connection checks then); this one never listens itself: the sniffer hands it sockets.
    this.http1.emit("listening");
    this.http2.setTimeout(timeouts.idleMs);
    const pace: BodyPace = { graceMs: timeouts.bodyGraceMs, bytesPerSecond: BODY_BYTES_PER_SECOND };
    const onRequest = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void => {
      this.inflight++;
      const ex = new Exchange(req, res, pace, unsent);
      void route(ex, {
        ...deps,
        drain: this.drain,
        appendLimits: this.appendLimits,
        readLimits: this.readLimits,
        heartbeatMs: timeouts.heartbeatMs,
      }).finally(() => {
        if (--this.inflight === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
    };
    this.http1.on("request", onRequest);
    this.http2.on("request", onRequest);
    this.http2.on("session", (session: Http2Session) => {
      // Over TLS the session is still connecting here: grow its window once it is set up.
      const grow = (): void => session.setLocalWindowSize(H2_SESSION_WINDOW);
      if (session.connecting) session.once("connect", grow);
      else grow();
      this.sessions.add(session);
      session.on("close", () => this.sessions.delete(session));
      session.on("error", () => undefined);
    });
    this.http1.on("clientError", (e: NodeJS.ErrnoException, socket: Socket) => answerClientError(e, socket));
    if (deps.tls) {
      // A tls.Server, not a bare TLSSocket: only its handshake marks the socket established,
      // which http2 waits for before it sets a session up.
      this.tls = createTlsServer({
        cert: deps.tls.cert,
        key: deps.tls.key,
        ALPNProtocols: ["h2", "http/1.1"],
        handshakeTimeout: timeouts.headersMs,
      });
      this.tls.on("secureConnection", (secure: TLSSocket) => {
        if (secure.alpnProtocol === "h2") this.http2.emit("connection", secure);
        else this.http1.emit("connection", secure);
      });
      this.tls.on("tlsClientError", (_e: Error, secure: TLSSocket) => secure.destroy());
    }
    this.net.on("connection", (socket: Socket) => {
      socket.on("error", () => undefined);
      if (!this.admit(socket, bounds.connectionsPerAddress)) return void socket.destroy();
      this.sockets.add(socket);
      if (this.tls) return void this.tls.emit("connection", socket);
      sniffProtocol(socket, timeouts.headersMs, (protocol, head) => {
        if (head.length > 0) socket.unshift(head);
        if (protocol === "h2") {
          // The session takes the socket's native handle (no JS stream in between: a wrapping
          // Duplex cost 0.4x of session throughput) and first reads what is buffered.
          this.http2.emit("connection", socket);
        } else {
          this.http1.emit("connection", socket);
          socket.resume();
        }
      });
    });
  }

  /** Counts `socket` against its address's cap: false (not counted) when the address has its fill. */
  private admit(socket: Socket, cap: number): boolean {
    const address = socket.remoteAddress ?? "";
    const open = this.perAddress.get(address) ?? 0;
    if (open >= cap) return false;
    this.perAddress.set(address, open + 1);
    socket.on("close", () => {
      this.sockets.delete(socket);
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left === 0) this.perAddress.delete(address);
      else this.perAddress.set(address, left);
    });
    return true;
  }

  /** Serves another certificate to every new TLS connection (a renewed --tls-self one). */
  useCertificate(cert: string, key: string): void {
    this.tls?.setSecureContext({ cert, key });
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.net.once("error", reject);
      this.net.listen(port, host, () => {
        this.net.removeListener("error", reject);
        resolve(this.net.address() as AddressInfo);
      });
    });
  }

  /** Graceful stop: at most `graceMs` for in-flight requests, then connections are cut. */
  async close(graceMs = 10_000): Promise<void> {
    this.net.close();
    this.drain.start();
    for (const s of this.sessions) s.close();
    this.http1.closeIdleConnections();
    if (this.inflight > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, graceMs);
        this.idleWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    // Let the last frames (acks, terminal frames) drain to the clients before cutting the
    // connections: HTTP/2 sessions close by themselves once their streams are done (GOAWAY
    // was sent above), HTTP/1.1 sockets once idle.
    this.http1.closeIdleConnections();
    await this.connectionsClosed(Math.min(graceMs, 2_000));
    this.http1.closeAllConnections();
    for (const s of this.sessions) s.destroy();
    for (const s of this.sockets) s.destroy();
  }

  private async connectionsClosed(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.sessions.size > 0 || this.sockets.size > 0) && Date.now() < deadline) {
      this.http1.closeIdleConnections();
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/**
 * Malformed HTTP/1.1 (a bad header name, an oversized header, a bad chunk size, both
 * Content-Length and chunked): answer 400, or 431 for oversized headers, with a JSON body,
 * then close; a dropped socket told the client nothing.
 */
function answerClientError(e: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || e.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const tooLarge = e.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request";
  const body = JSON.stringify({
    code: "bad_header",
    message: tooLarge ? "the request headers are too large" : `malformed HTTP request (${e.code ?? "parse error"})`,
  });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
