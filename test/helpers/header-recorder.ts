/**
 * A recording reverse proxy on loopback for tests of the protocol's dialects: HTTP/1.1 and h2c
 * (prior knowledge) on one port, as svc lite serves them, each request forwarded to `target`
 * and its method, path and header names recorded. With `onlyS2`, it stands for a server that
 * knows only S2's names: a request naming any svc protocol header (or `svc/proto`) is answered
 * 400 bad_header there, as such a server answers a request whose `s2-basin` is missing.
 */
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { HEADER_NAMES, SESSION_CONTENT_TYPE } from "../../src/wire/dialect.js";

export interface Recorded {
  protocol: "h1" | "h2";
  method: string;
  path: string;
  /** Lower-case names, pseudo-headers left out. */
  headers: Record<string, string>;
}

export interface RecordingProxy {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

const SVC_NAMES = new Set(Object.values(HEADER_NAMES.svc));
const HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "proxy-connection",
  "host",
  "http2-settings",
]);

/** Whether a request names a protocol header (or its session type) as svc does. */
export function usesSvcNames(r: Recorded): boolean {
  return (
    Object.keys(r.headers).some((k) => SVC_NAMES.has(k)) ||
    (r.headers["content-type"] ?? "").startsWith(SESSION_CONTENT_TYPE.svc)
  );
}

function flat(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (!k.startsWith(":") && v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : String(v);
  return out;
}

function forwardable(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter(([k]) => !HOP.has(k)));
}

const REFUSAL = JSON.stringify({
  code: "bad_header",
  message: "missing header `s2-basin` (this server knows only S2's header names)",
});

export async function startRecordingProxy(target: string, opts: { onlyS2?: boolean } = {}): Promise<RecordingProxy> {
  const requests: Recorded[] = [];
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let h2up: http2.ClientHttp2Session | undefined;
  const h2client = (): http2.ClientHttp2Session => {
    if (!h2up || h2up.closed || h2up.destroyed) {
      h2up = http2.connect(target);
      h2up.on("error", () => undefined);
    }
    return h2up;
  };

  const h1 = http.createServer((req, res) => {
    const rec: Recorded = {
      protocol: "h1",
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: flat(req.headers),
    };
    requests.push(rec);
    if (opts.onlyS2 && usesSvcNames(rec))
      return void res.writeHead(400, { "content-type": "application/json" }).end(REFUSAL);
    const up = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: rec.method,
        path: rec.path,
        headers: forwardable(rec.headers),
        agent,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, forwardable(flat(r.headers)));
        r.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });

  const h2 = http2.createServer();
  h2.on("stream", (stream, headers) => {
    const rec: Recorded = {
      protocol: "h2",
      method: String(headers[":method"]),
      path: String(headers[":path"]),
      headers: flat(headers),
    };
    requests.push(rec);
    stream.on("error", () => undefined);
    if (opts.onlyS2 && usesSvcNames(rec)) {
      stream.respond({ ":status": 400, "content-type": "application/json" });
      return void stream.end(REFUSAL);
    }
    const up = h2client().request({ ...forwardable(rec.headers), ":method": rec.method, ":path": rec.path });
    up.on("error", () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    up.on("response", (h) => stream.respond({ ...forwardable(flat(h)), ":status": Number(h[":status"]) }));
    stream.pipe(up);
    up.pipe(stream);
    stream.on("close", () => {
      if (!up.closed) up.close();
    });
  });

  // One port for both, as lite: the h2c preface starts with "PRI ".
  const server = net.createServer((socket) => {
    socket.once("data", (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      // An HTTP/2 session reads the socket's handle itself (what is buffered first); HTTP/1.1 needs it flowing.
      if (first.subarray(0, 3).toString("latin1") === "PRI") return void h2.emit("connection", socket);
      h1.emit("connection", socket);
      socket.resume();
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      h2up?.close();
      agent.destroy();
      h1.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
