/**
 * One request/response adapter for HTTP/1.1 (node:http) and HTTP/2 (the node:http2
 * compatibility API, whose req/res mirror node:http). Handlers see only this.
 *
 * - Request bodies: capped (16 MiB for unary bodies) and paced (request-body.ts),
 *   `Content-Encoding: zstd|gzip` decompressed with the same cap, never inflated past it
 *   (protocol.md §2.0). A body nobody reads is never waited for: see writeHead.
 * - Responses: bodies over 1 KiB are compressed when Accept-Encoding asks (zstd preferred,
 *   then gzip); callers opt out for SSE and svc/proto.
 * - Dialects (wire/dialect.ts): a request may name its protocol headers as svc does or as S2
 *   does; `dialectHeader` reads either, `dialectHeaders` answers in the names it was asked in.
 * - Once its head is sent, the response is a stream (response-stream.ts).
 */
import type { ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { Socket } from "node:net";
import { SvcError, serverError } from "../../errors.js";
import {
  compress,
  decompress,
  negotiateCompression,
  parseContentEncoding,
  shouldCompress,
} from "../../wire/compression.js";
import { DIALECT_ROLES, type DialectRole, HEADER_NAMES } from "../../wire/dialect.js";
import { type BodyPace, BodyRefused, readWhole, tooLarge } from "./request-body.js";
import { type Req, type Res, ResponseStream, resetH2 } from "./response-stream.js";
import type { UnsentAnswers } from "./unsent-answers.js";

const SVC = HEADER_NAMES.svc;
const S2 = HEADER_NAMES.s2;

const MAX_UNARY_BODY = 16 * 1024 * 1024;

export type Headers = Record<string, string>;

export class Exchange extends ResponseStream {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The query string as sent, without its `?`. */
  readonly rawQuery: string;
  /** Aborted when the client goes away before the response is complete. */
  readonly signal: AbortSignal;
  private readonly hangup = new AbortController();
  private sent = false;
  /** The status sent, 0 before any (metrics). */
  status = 0;
  /** Set when the request body was left unread (too large, too slow): the connection cannot be reused. */
  private closeConnection = false;
  /** Whether a handler reads the request body (claimBody). */
  private bodyClaimed = false;
  /** When the request head arrived (the body's pace counts from it). */
  private readonly headAt = performance.now();
  /** The `Access-Control-Allow-Origin` value the router's CORS policy chose, if any. */
  corsAllowOrigin: string | undefined;
  /**
   * Runs once a body has arrived whole, before it is returned to anything that acts on it:
   * the router re-checks the principal here, so a token revoked or expired while its body
   * trickled in never acts.
   */
  bodyGate: (() => void | Promise<void>) | undefined;
  /** Whether the request names a protocol header as S2 does (checkDialect). */
  private s2Names = false;

  constructor(
    req: Req,
    res: Res,
    private readonly pace: BodyPace,
    private readonly unsent: UnsentAnswers,
  ) {
    super(req, res);
    this.method = (req.method ?? "GET").toUpperCase();
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    this.path = q < 0 ? url : url.slice(0, q);
    this.rawQuery = q < 0 ? "" : url.slice(q + 1);
    this.query = new URLSearchParams(this.rawQuery);
    this.signal = this.hangup.signal;
    // A reset stream or connection surfaces as the abort signal, never as a crash.
    req.on("error", () => this.hangup.abort());
    res.on("error", () => this.hangup.abort());
    res.on("close", () => {
      if (!res.writableFinished) this.hangup.abort();
      this.markClosed();
    });
    // An answer complete while its request body is still arriving, and nobody reads that body
    // any more: HTTP/1.1 could reuse the connection only after draining all of it (a client
    // trickling a declared 1 GB would hold the socket for ever), so it is closed once the
    // answer is out; on HTTP/2 the stream is ended (NO_ERROR) once the answer is flushed, the
    // connection kept. (The compatibility response's "finish" waits for the stream to close,
    // which a stream still being read does not do by itself: the stream's own is used.)
    const answered = (): void => {
      if (this.bodyPending()) this.dropBody();
    };
    if (req.httpVersionMajor === 2) (res as Http2ServerResponse).stream.once("finish", answered);
    else res.once("finish", answered);
  }

  /** The connection the request came on (the HTTP/2 session, or the HTTP/1.1 socket). */
  get connection(): object {
    const h2 = this.req.httpVersionMajor === 2 ? (this.req as Http2ServerRequest).stream.session : undefined;
    return h2 ?? this.req.socket ?? this.req;
  }

  get httpVersion(): string {
    return this.req.httpVersion;
  }

  get responded(): boolean {
    return this.sent;
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  }

  /**
   * Checks the request's protocol header names (wire/dialect.ts): a header sent under both
   * its svc and its S2 name is 400 bad_header naming both. Call once, before any handler.
   */
  checkDialect(): void {
    const h = this.req.headers;
    for (const role of DIALECT_ROLES) {
      if (h[S2[role]] === undefined) continue;
      this.s2Names = true;
      if (h[SVC[role]] !== undefined)
        throw serverError(
          "bad_header",
          `both ${SVC[role]} and ${S2[role]} were sent: name the header once, as svc (${SVC[role]}) or as S2 (${S2[role]}) does`,
        );
    }
  }

  /** A protocol header under whichever name the request used (checkDialect ruled out both). */
  dialectHeader(role: DialectRole): string | undefined {
    const v = this.header(SVC[role]);
    return v !== undefined || !this.s2Names ? v : this.header(S2[role]);
  }

  /**
   * The names of a protocol header as the request would spell it, for messages and answers:
   * its dialect's; both when it used neither (nothing tells which) or each for another header.
   */
  dialectNames(role: DialectRole): string[] {
    const svcUsed = DIALECT_ROLES.some((r) => this.req.headers[SVC[r]] !== undefined);
    if (svcUsed === this.s2Names) return [SVC[role], S2[role]];
    return [this.s2Names ? S2[role] : SVC[role]];
  }

  /** A response header in the request's dialect (both names when it used neither). */
  dialectHeaders(role: DialectRole, value: string): Headers {
    const out: Headers = {};
    for (const name of this.dialectNames(role)) out[name] = value;
    return out;
  }

  /** The Host (HTTP/1.1) or :authority (HTTP/2). */
  get host(): string | undefined {
    return this.header(":authority") ?? this.header("host");
  }

  /**
   * Reads the whole body, decompressing it per Content-Encoding; at most `limit` bytes, arriving
   * at the pace of request-body.ts (else 413 or 408, and the connection is closed).
   */
  async body(limit = MAX_UNARY_BODY): Promise<Buffer> {
    const encoding = parseContentEncoding(this.header("content-encoding"));
    if (encoding === undefined)
      throw serverError(
        "bad_header",
        `unsupported Content-Encoding ${JSON.stringify(this.header("content-encoding"))}`,
      );
    this.claimBody();
    let raw: Buffer;
    try {
      raw = await readWhole(this.req as AsyncIterable<Buffer>, limit, this.pace, this.headAt);
    } catch (e) {
      // The rest of the body stays unread, so an HTTP/1.1 connection cannot carry another
      // request: say so and close it once the answer is sent (it used to say keep-alive and hang).
      if (e instanceof BodyRefused) this.closeConnection = true;
      else this.hangup.abort();
      throw e;
    }
    await this.bodyGate?.();
    if (encoding === "none") return raw;
    try {
      const out = await decompress(raw, encoding, limit);
      return Buffer.isBuffer(out) ? out : Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    } catch (e) {
      if (e instanceof SvcError && e.code === "too_large") throw tooLarge(limit);
      throw serverError("bad_header", `the request body is not valid ${encoding} data`);
    }
  }

  /**
   * Says that a handler reads the request body (a whole body, or an append session's frames):
   * an answer sent while any other body is still arriving closes the connection (writeHead).
   */
  claimBody(): void {
    this.bodyClaimed = true;
  }

  async sendJson(status: number, body: unknown, headers: Headers = {}): Promise<void> {
    await this.send(status, Buffer.from(JSON.stringify(body), "utf8"), "application/json", headers);
  }

  async send(
    status: number,
    body: Uint8Array,
    contentType: string,
    headers: Headers = {},
    compressible = true,
  ): Promise<void> {
    let payload = body;
    const out: Headers = { "content-type": contentType, ...headers };
    if (compressible && shouldCompress(body.length)) {
      const algorithm = negotiateCompression(this.req.headers["accept-encoding"]);
      if (algorithm !== "none") {
        payload = await compress(body, algorithm);
        out["content-encoding"] = algorithm;
        out["vary"] = "accept-encoding";
      }
    }
    out["content-length"] = String(payload.length);
    if (this.writeHead(status, out)) this.endWith(payload);
  }

  sendEmpty(status: number, headers: Headers = {}): void {
    if (this.writeHead(status, { ...headers, "content-length": "0" })) this.endWith();
  }

  sendText(status: number, text: string): void {
    const body = Buffer.from(text, "utf8");
    if (this.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": String(body.length) }))
      this.endWith(body);
  }

  private endWith(body?: Uint8Array): void {
    if (body === undefined) this.res.end();
    else this.res.end(body);
    this.ended();
  }

  /** A complete answer must be sent in time, and a connection holds few unsent (unsent-answers.ts). */
  protected override ended(): void {
    this.unsent.completed(this);
  }

  /**
   * Starts a streaming response (sessions, SSE): sends the status and headers now, never
   * compressed, and leaves the body open for the session to write.
   */
  startStream(status: number, headers: Headers): boolean {
    if (!this.writeHead(status, headers)) return false;
    (this.res as ServerResponse).flushHeaders?.();
    return true;
  }

  /** Whether a request body may still be arriving (none declared: false). */
  private bodyPending(): boolean {
    const req = this.req;
    if (req.complete) return false;
    if (req.httpVersionMajor === 2) return !(req as Http2ServerRequest).stream.endAfterHeaders;
    const length = req.headers["content-length"];
    return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
  }

  private dropBody(): void {
    if (this.req.httpVersionMajor === 2) resetH2(this.res as Http2ServerResponse);
    else (this.req.socket as Socket | null)?.destroySoon();
  }

  /** False when a response was already started (or the stream is gone). */
  private writeHead(status: number, headers: Headers): boolean {
    if (this.sent || this.res.headersSent || this.res.destroyed) return false;
    this.sent = true;
    this.status = status;
    // An answer sent while a body nobody will read is still arriving (a 2xx of /health, /ping
    // or a preflight; a 401, 403, 404, 405 or 413...): that body is never waited for, and the
    // HTTP/1.1 client is told that the connection closes once the answer is out (see "finish"
    // in the constructor). A body being read (an append session's) keeps its connection
    // unless the answer is an error.
    const unread = this.bodyPending() && (!this.bodyClaimed || status >= 400);
    if ((this.closeConnection || unread) && this.req.httpVersionMajor === 1) headers.connection = "close";
    if (this.corsAllowOrigin !== undefined) {
      headers["access-control-allow-origin"] = this.corsAllowOrigin;
      headers["access-control-expose-headers"] = "*";
      if (this.corsAllowOrigin !== "*") headers.vary = "Origin";
    }
    (this.res as ServerResponse).writeHead(status, headers);
    return true;
  }
}
