/**
 * Found by a security review: after a 401 lite kept draining a declared 1 GB body with no
 * deadline, so the 30 s head timeout never applied: 230 connections trickling a byte every 5 s
 * held 176 sockets after 40 s and starved a legitimate client under `ulimit -n 200`. Now an
 * early error (401, 403, 404…) is answered at once with `Connection: close` and the connection
 * is closed: a body nobody is authorized to send is never waited for. HTTP/2 resets the
 * stream instead (the connection carries other streams).
 */
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, startLite } from "../helpers/lite.js";
import { slowRequest } from "../helpers/slow-request.js";

let lite: Lite;
let open: Lite;

beforeAll(async () => {
  lite = await startLite();
  open = await startLite({ args: ["--no-auth"] });
});

afterAll(async () => {
  await lite?.stop();
  await open?.stop();
});

describe("a refused request with a body still to come", () => {
  it("is answered 401 and its connection closed without waiting for the body (HTTP/1.1)", async () => {
    const req = await slowRequest(
      lite.url,
      "POST",
      "/v1/basins",
      { authorization: "Bearer nope", "content-type": "application/json" },
      "x".repeat(100),
    );
    // declared 100 bytes, 1 sent: the answer comes now, and the server closes the connection
    const a = await req.answer;
    expect(a.status).toBe(401);
    expect(a.headers.toLowerCase()).toContain("connection: close");
    await req.closed;
  });

  it("is closed for a 1 GB declared body with no Authorization at all", async () => {
    const req = await slowRequest(
      lite.url,
      "PUT",
      "/v1/basins/huge",
      { "content-length": String(1 << 30), "content-type": "application/json" },
      "{",
      1,
    );
    expect((await req.answer).status).toBe(401);
    const t0 = Date.now();
    await req.closed;
    expect(Date.now() - t0).toBeLessThan(2_000); // not after some timeout: at once
  });

  it("is closed for a Host refused by an open (--no-auth) server", async () => {
    const req = await slowRequest(
      open.url,
      "POST",
      "/v1/basins",
      { host: "evil.example", "content-type": "application/json", "content-length": "1000" },
      "{",
      1,
    );
    expect((await req.answer).status).toBe(403);
    await req.closed;
  });

  it("resets the HTTP/2 stream and keeps the connection for other requests", async () => {
    const conn = connect(lite.url);
    conn.on("error", () => undefined);
    const stream = conn.request({
      ":method": "POST",
      ":path": "/v1/basins",
      authorization: "Bearer nope",
      "content-type": "application/json",
    });
    stream.write("{");
    const status = await new Promise<number>((r) => stream.on("response", (h) => r(Number(h[":status"]))));
    expect(status).toBe(401);
    await new Promise<void>((r) => {
      stream.on("close", () => r());
      stream.resume();
    });
    const ok = conn.request({ ":method": "GET", ":path": "/v1/basins", authorization: `Bearer ${lite.token}` });
    ok.end();
    expect(await new Promise<number>((r) => ok.on("response", (h) => r(Number(h[":status"]))))).toBe(200);
    ok.resume();
    conn.close();
  });

  it("keeps the connection open when the refused request had no body", async () => {
    const req = await slowRequest(
      lite.url,
      "GET",
      "/v1/basins",
      { authorization: "Bearer nope", "content-length": "0" },
      "",
      0,
    );
    const a = await req.answer;
    expect(a.status).toBe(401);
    expect(a.headers.toLowerCase()).not.toContain("connection: close");
    req.socket.destroy();
  });
});
