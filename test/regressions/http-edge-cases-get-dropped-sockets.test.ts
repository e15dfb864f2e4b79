/**
 * Bugs, pinned over raw sockets against a real svc lite:
 * - a 413 (body over 16 MiB) said `Connection: keep-alive`, then never answered the next
 *   request on that connection (reset after ~6 s): it now says `Connection: close`, sends
 *   its JSON body, and closes;
 * - malformed HTTP (an invalid header name, a 64 KiB header, a bad chunk size,
 *   Content-Length with chunked) got a dropped socket: it now gets 400 (431 for oversized
 *   headers) with a JSON body, then the connection closes;
 * - every client that aborted mid-body was logged as `internal error … aborted` and
 *   `→ 500`: a client going away is not a server error and is not logged as one.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite();
});
afterAll(async () => {
  await lite?.stop();
});

/** Writes `request` on a fresh socket; resolves with everything read until the server closes (or `ms`). */
function exchange(request: Buffer | string, ms = 10_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const { port } = new URL(lite.url);
    const s = connect(Number(port), "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closed: false });
    }, ms);
    s.on("data", (c: Buffer) => chunks.push(c));
    s.on("error", () => undefined);
    s.on("close", () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closed: true });
    });
    s.write(request);
  });
}

const host = (): string => `Host: 127.0.0.1\r\nAuthorization: Bearer ${lite.token}\r\n`;

describe("HTTP edge cases get answers, not dropped sockets", () => {
  it("413: the JSON body arrives with Connection: close, and the server then closes; the next connection works", async () => {
    const basin = uniqueBasin("big");
    expect((await liteClient(lite).call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    const size = 17 * 1024 * 1024;
    const head = `POST /v1/streams/s/records HTTP/1.1\r\n${host()}svc-basin: ${basin}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    const second = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const r = await exchange(Buffer.concat([Buffer.from(head), Buffer.alloc(size, 0x20), Buffer.from(second)]));
    expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(r.text.toLowerCase()).toContain("connection: close");
    expect(r.text).toContain('"code":"invalid"');
    expect(r.closed, "the server closes the connection instead of leaving it hanging").toBe(true);
    expect((await liteClient(lite).call("GET", "/health")).status).toBe(200);
  });

  it.each([
    ["an invalid header name", `GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`, 400],
    ["a 64 KiB header", `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`, 431],
    [
      "a bad chunk size",
      `POST /v1/basins HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
      400,
    ],
    [
      "Content-Length with chunked",
      `POST /v1/basins HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
      400,
    ],
  ])("%s: answered 400/431 with a JSON body, then closed", async (_name, request, status) => {
    const r = await exchange(request.replace("TOKEN", lite.token));
    expect(r.text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(JSON.parse(r.text.slice(r.text.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "bad_header" });
    expect(r.closed).toBe(true);
  });

  it("a client that aborts mid-body is not logged as an internal error or a 500", async () => {
    const basin = uniqueBasin("abort");
    expect((await liteClient(lite).call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const s = connect(Number(new URL(lite.url).port), "127.0.0.1");
        s.on("error", () => undefined);
        s.write(
          `POST /v1/streams/s/records HTTP/1.1\r\n${host()}svc-basin: ${basin}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"records":[`,
        );
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 100);
      });
    }
    await new Promise((r) => setTimeout(r, 300));
    expect((await liteClient(lite).call("GET", "/health")).status).toBe(200);
    expect(lite.stderr()).not.toMatch(/internal error|→ 500|unhandled rejection/);
  });
});
