/**
 * One full-duplex streaming exchange over HTTP/2: h2c with prior knowledge for `http://`
 * endpoints, h2 over TLS for `https://` (protocol.md §6.1). It moves bytes only; framing and
 * records live above it. Response data is delivered while the request body is still being
 * written, which is what append sessions need.
 *
 * Connections are pooled per origin and opened with 2 MiB stream / 16 MiB connection windows:
 * with the 64 KiB defaults a session runs at about half speed on this machine, and a stream
 * window smaller than two full 1 MiB frames makes every input wait for a window update.
 */
import http2 from "node:http2";
import { SvcError, clientError } from "../errors.js";

const STREAM_WINDOW = 2 * 1024 * 1024;
const CONNECTION_WINDOW = 16 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 5_000;

export interface SessionRequest {
  /** Full URL: origin, path and query. */
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  /** Keep the request body open for writes (append sessions). */
  duplex?: boolean;
  /** Milliseconds to wait for the response headers. */
  timeoutMs?: number;
}

/** An established exchange: the response status is known, data flows both ways. */
export interface SessionExchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Response body chunks; ends when the server ends the response. Throws SvcError. */
  body: AsyncIterable<Uint8Array>;
  /** Writes request bytes; resolves when the transport can take more (back-pressure). */
  write(chunk: Uint8Array): Promise<void>;
  /** Half-closes the request body. */
  end(): void;
  /** Abandons the exchange (RST_STREAM); pending reads end with an error. */
  close(): void;
  /** Abandons the whole connection (it went silent): no later exchange will reuse it. */
  abandon(): void;
  /** Reads the whole (error) body, for non-200 responses. */
  text(): Promise<string>;
}

const pool = new Map<string, http2.ClientHttp2Session>();
const openStreams = new WeakMap<http2.ClientHttp2Session, number>();

function connect(origin: string): Promise<http2.ClientHttp2Session> {
  const existing = pool.get(origin);
  if (existing && !existing.closed && !existing.destroyed) return Promise.resolve(existing);
  return new Promise((resolve, reject) => {
    const session = http2.connect(origin, { settings: { initialWindowSize: STREAM_WINDOW } });
    const timer = setTimeout(() => {
      session.destroy();
      reject(clientError("connect_failed", `could not connect to ${origin} within ${CONNECT_TIMEOUT_MS} ms`));
    }, CONNECT_TIMEOUT_MS);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      pool.delete(origin);
      reject(clientError("connect_failed", `could not connect to ${origin}: ${err.message}`, err));
    };
    session.once("error", fail);
    session.once("connect", () => {
      clearTimeout(timer);
      session.off("error", fail);
      session.on("error", () => pool.delete(origin));
      session.setLocalWindowSize(CONNECTION_WINDOW);
      session.unref();
      resolve(session);
    });
    session.once("close", () => {
      if (pool.get(origin) === session) pool.delete(origin);
    });
    pool.set(origin, session);
  });
}

function dropConnection(origin: string, session: http2.ClientHttp2Session): void {
  if (pool.get(origin) === session) pool.delete(origin);
  session.destroy();
}

/** Closes every pooled connection (tests and process exit). */
export function closeSessionPool(): void {
  for (const s of pool.values()) s.close();
  pool.clear();
}

/** Opens an exchange and waits for the response headers. */
export async function openSession(req: SessionRequest): Promise<SessionExchange> {
  const url = new URL(req.url);
  const session = await connect(url.origin);
  // The pooled connection keeps the process alive only while one of its streams is open.
  openStreams.set(session, (openStreams.get(session) ?? 0) + 1);
  session.ref();
  const stream = session.request(
    { ...req.headers, ":method": req.method, ":path": url.pathname + url.search },
    { endStream: !req.duplex },
  );
  stream.once("close", () => {
    const left = (openStreams.get(session) ?? 1) - 1;
    openStreams.set(session, left);
    if (left === 0 && !session.destroyed) session.unref();
  });
  let response: http2.IncomingHttpHeaders;
  try {
    response = await waitForResponse(stream, req.timeoutMs ?? 30_000);
  } catch (e) {
    if ((e as SvcError).code === "timeout") dropConnection(url.origin, session);
    throw e;
  }
  return exchange(stream, response, () => dropConnection(url.origin, session));
}

function waitForResponse(stream: http2.ClientHttp2Stream, timeoutMs: number): Promise<http2.IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      reject(clientError("timeout", `no response within ${timeoutMs} ms`));
    }, timeoutMs);
    stream.once("response", (headers) => {
      clearTimeout(timer);
      resolve(headers);
    });
    stream.once("error", (err) => {
      clearTimeout(timer);
      reject(networkError(err));
    });
    stream.once("close", () => {
      clearTimeout(timer);
      reject(clientError("network", "the stream closed before a response arrived"));
    });
  });
}

function networkError(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return clientError("network", `session connection failed: ${message}`, err);
}

function exchange(stream: http2.ClientHttp2Stream, headers: http2.IncomingHttpHeaders, drop: () => void): SessionExchange {
  let streamError: SvcError | undefined;
  stream.on("error", (err) => {
    streamError = networkError(err);
  });
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of stream) yield chunk as Uint8Array;
    } catch (e) {
      throw streamError ?? networkError(e);
    }
    if (streamError) throw streamError;
    if (stream.rstCode !== undefined && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) {
      throw clientError("network", `the server reset the session (HTTP/2 error ${stream.rstCode})`);
    }
    // Only END_STREAM from the server is a clean end; a destroyed stream can stop iterating
    // quietly, which must not look like a completed session.
    if (!stream.readableEnded) throw clientError("network", "the session's connection closed before the response ended");
  }
  return {
    status: Number(headers[":status"] ?? 0),
    headers: headers as Record<string, string | string[] | undefined>,
    body: body(),
    write(chunk) {
      if (streamError) return Promise.reject(streamError);
      if (stream.destroyed || stream.writableEnded) return Promise.reject(clientError("network", "the session is closed"));
      return new Promise((resolve, reject) => {
        const ok = stream.write(chunk, (err) => {
          if (err && !ok) reject(networkError(err));
        });
        if (ok) resolve();
        else {
          const onDrain = (): void => { cleanup(); resolve(); };
          const onClose = (): void => { cleanup(); reject(streamError ?? clientError("network", "the session closed while writing")); };
          const cleanup = (): void => { stream.off("drain", onDrain); stream.off("close", onClose); };
          stream.once("drain", onDrain);
          stream.once("close", onClose);
        }
      });
    },
    end() {
      if (!stream.destroyed && !stream.writableEnded) stream.end();
    },
    close() {
      if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
    },
    abandon() {
      drop();
    },
    async text() {
      const chunks: Buffer[] = [];
      for await (const c of stream) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  };
}
