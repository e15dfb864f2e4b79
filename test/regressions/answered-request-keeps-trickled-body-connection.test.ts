/**
 * Found by a second security review: clients without a token held HTTP/1.1 sockets for ever
 * through requests answered before their body arrived. `GET /health`, `GET /ping` and a CORS
 * preflight `OPTIONS` are answered 2xx at once, and only answers of 400 and above closed a
 * connection whose declared body was still coming; the server has no request timeout (append
 * sessions stream for hours), so Node kept draining a trickled `Content-Length: 1000000000`
 * body to reuse the connection. Under `ulimit -n 200`, 190 such connections held 170 sockets
 * after 30 s, a legitimate client got no answer and lite logged EMFILE. Now any answer sent
 * while a body nobody reads is still arriving says `Connection: close` and the connection is
 * closed once it is out (HTTP/2: the stream is ended, the connection kept), and a body that is
 * read must keep a pace (SVC_LITE_BODY_GRACE_MS, then 8 KiB/s) or it is answered 408
 * `request_timeout` and its connection closed. Reproduced here with a trickled body on every
 * route that reads none (health, ping, preflight, 404, 405), and on one that reads it.
 */
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";
import { slowRequest } from "../helpers/slow-request.js";

let lite: Lite;

beforeAll(async () => {
  lite = await startLite({ env: { SVC_LITE_BODY_GRACE_MS: "1000" } });
});

afterAll(async () => {
  await lite?.stop();
});

const HUGE = { "content-length": "1000000000", "content-type": "application/json" };

/** Routes that answer without reading the body, with no token at all. */
const UNREAD: [string, string, Record<string, string>, number][] = [
  ["GET", "/health", {}, 200],
  ["GET", "/ping", {}, 200],
  ["OPTIONS", "/v1/basins", { origin: "https://example.com", "access-control-request-method": "POST" }, 204],
  ["GET", "/no/such/route", {}, 404],
  ["DELETE", "/v1/basins", {}, 405],
];

describe("an answer sent while a body nobody reads is still arriving", () => {
  it.each(UNREAD)(
    "%s %s: answered, then the connection is closed (HTTP/1.1)",
    async (method, path, headers, status) => {
      const req = await slowRequest(lite.url, method, path, { ...HUGE, ...headers }, "{".repeat(1000));
      const stop = req.trickle(100);
      const a = await req.answer;
      expect(a.status).toBe(status);
      expect(a.headers.toLowerCase()).toContain("connection: close");
      const closed = await req.closedWithin(3_000);
      stop();
      req.socket.destroy();
      expect(closed, `${method} ${path}: the connection was still open 3 s after the answer`).toBe(true);
    },
  );

  it("many trickling connections are all closed, and a legitimate client is answered meanwhile", async () => {
    const reqs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const [method, path, headers] = UNREAD[i % UNREAD.length]!;
        return slowRequest(lite.url, method, path, { ...HUGE, ...headers }, "{".repeat(1000));
      }),
    );
    const stops = reqs.map((r) => r.trickle(200));
    try {
      expect((await liteClient(lite).call("GET", "/v1/basins")).status).toBe(200);
      const closed = await Promise.all(reqs.map((r) => r.closedWithin(5_000)));
      expect(closed.filter((c) => !c).length).toBe(0);
    } finally {
      for (const s of stops) s();
      for (const r of reqs) r.socket.destroy();
    }
  });

  it("HTTP/2: the stream is ended once /health is answered, and the connection serves on", async () => {
    const conn = connect(lite.url);
    conn.on("error", () => undefined);
    try {
      const stream = conn.request({ ":method": "GET", ":path": "/health", "content-type": "text/plain" });
      stream.on("error", () => undefined);
      stream.write("{");
      const timer = setInterval(() => !stream.destroyed && stream.write("{"), 100);
      const status = await new Promise<number>((r) => stream.on("response", (h) => r(Number(h[":status"]))));
      expect(status).toBe(200);
      stream.resume();
      const ended = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), 3_000);
        stream.on("close", () => {
          clearTimeout(t);
          resolve(true);
        });
      });
      clearInterval(timer);
      expect(ended, "the /health stream was still open 3 s after its answer").toBe(true);
      const ok = conn.request({ ":method": "GET", ":path": "/v1/basins", authorization: `Bearer ${lite.token}` });
      ok.end();
      expect(await new Promise<number>((r) => ok.on("response", (h) => r(Number(h[":status"]))))).toBe(200);
      ok.resume();
    } finally {
      conn.close();
    }
  });
});

describe("a body that is read must keep a pace", () => {
  it("a trickled body is answered 408 request_timeout and its connection closed", async () => {
    const req = await slowRequest(
      lite.url,
      "POST",
      "/v1/basins",
      { authorization: `Bearer ${lite.token}`, "content-type": "application/json", "content-length": "1000" },
      "{".repeat(1000),
    );
    const stop = req.trickle(100); // 10 bytes a second: far below the pace once the 1 s grace is over
    try {
      const a = await req.answer;
      expect(a.status).toBe(408);
      expect(JSON.parse(a.body).code).toBe("request_timeout");
      expect(a.headers.toLowerCase()).toContain("connection: close");
      expect(await req.closedWithin(3_000)).toBe(true);
    } finally {
      stop();
      req.socket.destroy();
    }
  });

  it("a slow body that keeps the pace is served", async () => {
    const basin = `paced-${process.pid}-${Date.now().toString(36)}`;
    const made = await liteClient(lite).call("POST", "/v1/basins", {
      json: { basin, config: { create_stream_on_append: true } },
    });
    expect(made.status).toBe(201);
    const body = JSON.stringify({ records: [{ body: "x".repeat(40_000) }] });
    const req = await slowRequest(
      lite.url,
      "POST",
      "/v1/streams/paced/records",
      { authorization: `Bearer ${lite.token}`, "content-type": "application/json", "svc-basin": basin },
      body,
      0,
    );
    // ~20 KiB/s for 2 s: slower than the grace, faster than the pace of 8 KiB/s after it.
    for (let at = 0; at < body.length; at += 4096) {
      req.socket.write(body.slice(at, at + 4096));
      await new Promise((r) => setTimeout(r, 200));
    }
    const a = await req.answer;
    req.socket.destroy();
    expect(a.status, a.body).toBe(200);
    expect(JSON.parse(a.body).end.seq_num).toBe(1);
  });
});
