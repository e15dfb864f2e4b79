/**
 * A server asked to prove who it is on every new connection, before any request that carries
 * a secret goes over that connection (the client decides what counts as proof; see
 * local-lite.ts). HTTP/1.1 (node:http, undici): the connection is made here and a
 * `GET <path>` with the challenge is written and its response read on the raw socket; only a
 * connection whose answer passes is handed to the HTTP client, which reuses it with
 * keep-alive. HTTP/2 sessions ask the same on a stream of the new connection (session.ts).
 */
import type http2 from "node:http2";
import * as net from "node:net";
import { clientError } from "../errors.js";
import { MAX_TIMER_MS, type PeerChallenge, type PeerCheck } from "./types.js";

/** The response head and a short body are all a proof needs; more is not a lite answering. */
const MAX_HEAD = 16 * 1024;
const MAX_BODY = 1024;
/** RST_STREAM CANCEL: the challenge's stream is done with once its answer is read. */
const NGHTTP2_CANCEL = 0x8;

/** A plain TCP connection to `host:port` whose server passed `check` (http: only). */
export function provenConnection(host: string, port: number, check: PeerCheck, timeoutMs: number): Promise<net.Socket> {
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let buffer = Buffer.alloc(0);
    let challenge: PeerChallenge | undefined;
    const timer = setTimeout(
      () => finish(check.refused(origin, `no answer to the challenge within ${timeoutMs} ms`)),
      Math.min(MAX_TIMER_MS, timeoutMs),
    );
    const finish = (err?: Error): void => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("end", onEnd);
      if (err) {
        socket.destroy();
        reject(err);
      } else {
        // Nothing more comes until the HTTP client writes its request on this socket.
        resolve(socket);
      }
    };
    const onError = (e: Error): void =>
      finish(
        challenge === undefined
          ? e
          : check.refused(origin, `the connection failed during the challenge (${e.message})`),
      );
    const onEnd = (): void =>
      finish(check.refused(origin, "the server closed the connection without answering the challenge"));
    const onData = (chunk: Buffer): void => {
      buffer = Buffer.concat([buffer, chunk]);
      const answer = parseAnswer(buffer);
      if (answer === "more") return;
      if (typeof answer === "string") return finish(check.refused(origin, answer));
      finish(
        challenge!.accept(answer)
          ? undefined
          : check.refused(origin, "its answer to the challenge is wrong or missing"),
      );
    };
    socket.once("connect", () => {
      challenge = check.challenge(socket.remoteAddress ?? host, socket.remotePort ?? port);
      const lines = [
        `GET ${check.path} HTTP/1.1`,
        `host: ${host.includes(":") ? `[${host}]` : host}:${port}`,
        ...Object.entries(challenge.headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    socket.on("data", onData);
    socket.on("error", onError);
    socket.on("end", onEnd);
  });
}

/**
 * One complete `200` response with a content-length body, as its headers; "more" while
 * incomplete; a reason when it cannot be the answer of a server that keeps the connection.
 */
function parseAnswer(buffer: Buffer): Record<string, string> | "more" | string {
  const end = buffer.indexOf("\r\n\r\n");
  if (end < 0) return buffer.length > MAX_HEAD ? "its answer to the challenge is not an HTTP response" : "more";
  const [status, ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
  if (!/^HTTP\/1\.[01] 200 /.test(`${status} `))
    return `it answered the challenge with ${JSON.stringify(status!.slice(0, 40))}`;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"]);
  if (!Number.isInteger(length) || length < 0 || length > MAX_BODY || headers["transfer-encoding"] !== undefined)
    return "its answer to the challenge has no short content-length body";
  if ((headers.connection ?? "").toLowerCase() === "close") return "it closes the connection after the challenge";
  const have = buffer.length - end - 4;
  if (have < length) return "more";
  if (have > length) return "it sent more than its answer to the challenge";
  return headers;
}

/** HTTP/2: asks the server of a new connection (session.ts) to prove itself on one stream. */
export function checkPeer(session: http2.ClientHttp2Session, origin: string, check: PeerCheck): Promise<void> {
  if (!origin.startsWith("http:"))
    return Promise.reject(clientError("usage", `a server check is made over http: only, not ${origin}`));
  const socket = session.socket;
  const url = new URL(origin);
  const challenge = check.challenge(socket.remoteAddress ?? url.hostname, socket.remotePort ?? Number(url.port || 80));
  return new Promise((resolve, reject) => {
    const stream = session.request({ ...challenge.headers, ":method": "GET", ":path": check.path });
    stream.once("response", (headers) => {
      stream.close(NGHTTP2_CANCEL);
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) if (typeof v === "string") flat[k] = v;
      if (Number(headers[":status"]) === 200 && challenge.accept(flat)) resolve();
      else
        reject(check.refused(origin, `its answer to the challenge is wrong or missing (status ${headers[":status"]})`));
    });
    stream.once("error", (e) => reject(check.refused(origin, `the challenge failed (${e.message})`)));
    stream.once("close", () => reject(check.refused(origin, "the server did not answer the challenge")));
    stream.resume();
  });
}
