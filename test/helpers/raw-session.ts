/**
 * A raw streaming exchange with svc lite over HTTP/1.1 (node:http, chunked both ways) or h2c
 * (node:http2), for protocol-level session tests: the test writes request bytes whenever it
 * likes and reads the response as it arrives, independent of svc's own client code.
 */
import http from "node:http";
import http2 from "node:http2";
import { FrameParser } from "../../src/wire/framing.js";
import { decodeAppendAck } from "../../src/wire/proto.js";
import type { Protocol } from "./lite.js";

export interface RawExchange {
  status: number;
  headers: Record<string, string>;
  write(bytes: Uint8Array): void;
  end(): void;
  /** Resolves with everything received once the response ends. */
  done: Promise<Buffer>;
  /** Bytes received so far. */
  received(): Buffer;
  /** Resolves once at least `n` bytes have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Buffer>;
  close(): void;
}

export interface RawRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  /** Keep the request body open for writes. */
  duplex?: boolean;
}

export function rawExchange(url: string, protocol: Protocol, req: RawRequest): Promise<RawExchange> {
  return protocol === "h2" ? h2Exchange(url, req) : h1Exchange(url, req);
}

function collector() {
  const chunks: Buffer[] = [];
  let size = 0;
  let waiters: (() => void)[] = [];
  return {
    push(c: Buffer) {
      chunks.push(c);
      size += c.length;
      for (const w of waiters.splice(0)) w();
    },
    all() {
      return Buffer.concat(chunks);
    },
    async waitFor(n: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (size < n) {
        if (Date.now() > deadline) throw new Error(`only ${size} of ${n} bytes arrived within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
        waiters = waiters.filter(Boolean);
      }
      return Buffer.concat(chunks);
    },
  };
}

function h2Exchange(url: string, req: RawRequest): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.on("error", reject);
    const stream = session.request(
      { ":method": req.method, ":path": req.path, ...req.headers },
      { endStream: !req.duplex },
    );
    const got = collector();
    const done = new Promise<Buffer>((res, rej) => {
      stream.on("data", (c: Buffer) => got.push(c));
      stream.on("end", () => {
        res(got.all());
        session.close();
      });
      stream.on("error", rej);
    });
    done.catch(() => undefined);
    stream.on("error", reject);
    stream.on("response", (h) => {
      const headers = Object.fromEntries(
        Object.entries(h)
          .filter(([k]) => !k.startsWith(":"))
          .map(([k, v]) => [k, String(v)]),
      );
      resolve({
        status: Number(h[":status"]),
        headers,
        done,
        write: (b) => void stream.write(b),
        end: () => stream.end(),
        received: () => got.all(),
        waitFor: (n, t) => got.waitFor(n, t),
        close: () => {
          stream.close();
          session.destroy();
        },
      });
    });
  });
}

function h1Exchange(url: string, req: RawRequest): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: false });
    const r = http.request(`${url}${req.path}`, { method: req.method, headers: req.headers, agent });
    r.on("error", reject);
    const got = collector();
    r.on("response", (res) => {
      const done = new Promise<Buffer>((ok, fail) => {
        res.on("data", (c: Buffer) => got.push(c));
        res.on("end", () => ok(got.all()));
        res.on("error", fail);
      });
      done.catch(() => undefined);
      const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
      resolve({
        status: res.statusCode ?? 0,
        headers,
        done,
        write: (b) => void r.write(b),
        end: () => r.end(),
        received: () => got.all(),
        waitFor: (n, t) => got.waitFor(n, t),
        close: () => r.destroy(),
      });
    });
    if (req.duplex) r.flushHeaders();
    else r.end();
  });
}

// ---------------------------------------------------------------------------------------
// Append sessions that never read their acks, and one that does (fairness tests).

/** An h2c connection whose streams have a window of 0: no response data (no ack) reaches it. */
export function unreadingConnection(url: string): http2.ClientHttp2Session {
  const conn = http2.connect(url, { settings: { initialWindowSize: 0 } });
  conn.on("error", () => undefined);
  return conn;
}

/** The request headers of an append session on `stream` of `basin` with `token`. */
export function appendSessionHeaders(token: string, basin: string, stream: string): http2.OutgoingHttpHeaders {
  return {
    ":method": "POST",
    ":path": `/v1/streams/${encodeURIComponent(stream)}/records`,
    authorization: `Bearer ${token}`,
    "svc-basin": basin,
    "content-type": "svc/proto",
  };
}

/**
 * Opens an append session on `conn` and writes `frame` again and again, reading nothing back,
 * until the server stops reading it (no 'drain' for `settleMs`) or `maxBytes` are sent.
 */
export async function unreadAppendSession(
  conn: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  frame: Uint8Array,
  { maxBytes = 64 << 20, settleMs = 1_500 } = {},
): Promise<{ stream: http2.ClientHttp2Stream; sent: number }> {
  const stream = conn.request(headers);
  stream.on("error", () => undefined);
  stream.pause();
  let sent = 0;
  await new Promise<void>((resolve) => {
    let settle: NodeJS.Timeout | undefined;
    const pump = (): void => {
      clearTimeout(settle);
      while (sent < maxBytes && !stream.destroyed) {
        sent += frame.length;
        if (!stream.write(frame)) {
          settle = setTimeout(resolve, settleMs); // the server stopped reading: that is the point
          return void stream.once("drain", pump);
        }
      }
      resolve();
    };
    pump();
  });
  return { stream, sent };
}

/**
 * A well-behaved append session on its own connection: writes `frames`, reads the acks and
 * resolves with their end seq nums; rejects when they have not all come within `ms`.
 */
export async function acksOf(
  url: string,
  headers: http2.OutgoingHttpHeaders,
  frames: Uint8Array[],
  ms = 10_000,
): Promise<number[]> {
  const conn = http2.connect(url);
  conn.on("error", () => undefined);
  try {
    return await acksOn(conn, headers, frames, ms);
  } finally {
    conn.close();
  }
}

/** As acksOf, on a connection the caller owns (one it shares with other sessions). */
export async function acksOn(
  conn: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  frames: Uint8Array[],
  ms = 10_000,
): Promise<number[]> {
  const s = conn.request(headers);
  const parser = new FrameParser();
  const acks: number[] = [];
  const all = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${acks.length} of ${frames.length} acks in ${ms} ms`)), ms);
    s.on("error", (e) => reject(e));
    s.on("data", (c: Buffer) => {
      parser.push(c);
      for (let f = parser.next(); f; f = parser.next()) {
        if (f.terminal) return reject(new Error(`terminal frame: ${Buffer.from(f.payload).toString()}`));
        acks.push(decodeAppendAck(f.payload).end.seqNum);
      }
      if (acks.length >= frames.length) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  for (const f of frames) s.write(f);
  try {
    await all;
  } catch (e) {
    s.close();
    throw e;
  }
  s.end();
  return acks;
}
