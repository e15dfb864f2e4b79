/**
 * A request sent in two parts over a raw HTTP/1.1 socket: the head and the first bytes of the
 * body now, the rest when the test says. For attacks that race something against a request
 * whose body is still arriving.
 */
import { connect, type Socket } from "node:net";

export interface SlowRequest {
  /** Sends the rest of the body and resolves with the status and body of the answer. */
  finish(): Promise<{ status: number; body: string }>;
  /** The answer, whenever it comes (before the body is finished, for early refusals). */
  answer: Promise<{ status: number; headers: string; body: string }>;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
  /** Whether the server closed the connection within `ms`. */
  closedWithin(ms: number): Promise<boolean>;
  /** Sends the body's next byte every `everyMs` (a slow loris) until the connection closes; returns a stop. */
  trickle(everyMs: number): () => void;
  socket: Socket;
}

export async function slowRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
  firstBytes = 1,
): Promise<SlowRequest> {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  await new Promise<void>((r, j) => {
    socket.once("connect", r);
    socket.once("error", j);
  });
  socket.on("error", () => undefined);
  let raw = "";
  const closed = new Promise<void>((r) => socket.once("close", () => r()));
  const answer = new Promise<{ status: number; headers: string; body: string }>((resolve) => {
    const check = (): void => {
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = raw.slice(0, end);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      const rest = raw.slice(end + 4);
      if (Buffer.byteLength(rest) >= length) resolve({ status: Number(head.split(" ")[1]), headers: head, body: rest });
    };
    socket.on("data", (c: Buffer) => {
      raw += c.toString("utf8");
      check();
    });
    void closed.then(check);
  });
  const all = { host: u.host, "content-length": String(Buffer.byteLength(body)), ...headers };
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;
  socket.write(head + body.slice(0, firstBytes));
  let sentBytes = firstBytes;
  return {
    socket,
    answer,
    closed,
    closedWithin(ms) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
      return Promise.race([closed.then(() => true), late]).finally(() => clearTimeout(timer));
    },
    trickle(everyMs) {
      const timer = setInterval(() => {
        if (socket.destroyed || sentBytes >= body.length) return clearInterval(timer);
        socket.write(body.slice(sentBytes, ++sentBytes));
      }, everyMs);
      void closed.then(() => clearInterval(timer));
      return () => clearInterval(timer);
    },
    async finish() {
      socket.write(body.slice(sentBytes));
      sentBytes = body.length;
      const a = await answer;
      return { status: a.status, body: a.body };
    },
  };
}
