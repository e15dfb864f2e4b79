/**
 * A raw streaming exchange with svc lite over HTTP/1.1 (node:http, chunked both ways) or h2c
 * (node:http2), for protocol-level session tests: the test writes request bytes whenever it
 * likes and reads the response as it arrives, independent of svc's own client code.
 */
import http from "node:http";
import http2 from "node:http2";
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
