/**
 * Bug: slow and idle clients were never cut. HTTP/1.1 headers trickled at
 * one byte a second were accepted for over 330 s: node:http's header timeout never fired for
 * sockets handed to it by the preface sniffer (it only checks servers that emitted
 * 'listening'). Idle HTTP/2 connections were never reaped, so 1,000 of them under a
 * 1,024-fd limit made every new connection fail. Now a request head must arrive within the
 * header timeout and an HTTP/2 connection with no frames for the idle timeout is closed
 * (knobs SVC_LITE_HEADERS_TIMEOUT_MS and SVC_LITE_IDLE_TIMEOUT_MS; 30 s and 300 s by default).
 */
import { connect as h2connect } from "node:http2";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite({
    inMemory: true,
    env: { SVC_LITE_HEADERS_TIMEOUT_MS: "1500", SVC_LITE_IDLE_TIMEOUT_MS: "1500" },
  });
});
afterAll(async () => {
  await lite?.stop();
});

/** Resolves with the ms until the server closed the socket (or rejects after `limitMs`). */
function closedAfter(write: (s: ReturnType<typeof connect>) => void, limitMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const s = connect(Number(new URL(lite.url).port), "127.0.0.1");
    s.on("error", () => undefined);
    s.on("data", () => undefined);
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`still open after ${limitMs} ms`));
    }, limitMs);
    s.on("close", () => {
      clearTimeout(timer);
      resolve(Date.now() - t0);
    });
    s.on("connect", () => write(s));
  });
}

describe("slowloris and idle connections are cut after a bounded time", () => {
  it("headers trickled one byte at a time: dropped; other requests are not slowed", async () => {
    const head = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(200);
    let timer: NodeJS.Timeout | undefined;
    const dropped = closedAfter((s) => {
      let i = 0;
      timer = setInterval(() => {
        if (!s.destroyed && i < head.length) s.write(head[i++]!);
      }, 100);
    }, 15_000);
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) expect((await liteClient(lite).call("GET", "/health")).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(2_000);
    const ms = await dropped.finally(() => clearInterval(timer));
    expect(ms).toBeLessThan(8_000);
  });

  it("a connection that never sends a byte is dropped", async () => {
    expect(await closedAfter(() => undefined, 10_000)).toBeLessThan(6_000);
  });

  it("an idle HTTP/2 connection is closed", async () => {
    const session = h2connect(lite.url);
    session.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      const req = session.request({ ":path": "/health" });
      req.on("response", () => undefined);
      req.resume();
      req.on("end", () => resolve());
      req.on("error", reject);
      req.end();
    });
    const t0 = Date.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("idle h2 connection still open after 10 s")), 10_000);
      session.on("close", () => {
        clearTimeout(timer);
        resolve();
      });
      session.on("goaway", () => undefined);
    });
    expect(Date.now() - t0).toBeLessThan(8_000);
  });
});
