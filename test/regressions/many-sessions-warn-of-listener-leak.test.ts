/**
 * Bug: with more than ten read sessions open at once (SSE or svc/proto, on one stream or on
 * several), lite's log said "MaxListenersExceededWarning: Possible EventTarget memory leak
 * detected. 11 abort listeners added to [AbortSignal]". Every session added a listener of its
 * own to the server's one shutdown signal (its drain watch), and every read combined that signal
 * with its own again; each wait for a live batch added and removed one more. Nothing leaked, but
 * an operator was told something did, and the listeners cost every session and every record.
 *
 * Now the server has one drain signal that fans out to the sessions watching it, and a read
 * holds one stop signal for its life. Sixteen sessions of each kind follow a stream, a live
 * record reaches every one of them, and lite's log carries no such warning.
 */
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, type LiteClient, liteClient, startLite } from "../helpers/lite.js";

const BASIN = "listener-leak-basin";
const SESSIONS = 16;
let lite: Lite;
let client: LiteClient;

beforeAll(async () => {
  lite = await startLite();
  client = liteClient(lite);
  expect((await client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
  for (const s of ["a", "b"])
    expect((await client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: s } })).status).toBe(201);
}, 30_000);

afterAll(async () => {
  await client?.close();
  await lite?.stop();
});

describe("many read sessions", () => {
  it("follow a stream without lite warning of a listener leak", async () => {
    const h2 = http2.connect(lite.url);
    h2.on("error", () => {});
    const received: string[] = [];
    const reqs = Array.from({ length: 2 * SESSIONS }, (_, i) => {
      const sse = i % 2 === 0;
      const req = h2.request({
        ":path": `/v1/streams/${i % 4 < 2 ? "a" : "b"}/records?seq_num=0`,
        authorization: `Bearer ${lite.token}`,
        "svc-basin": BASIN,
        ...(sse ? { accept: "text/event-stream" } : { "content-type": "svc/proto", accept: "svc/proto" }),
      });
      let text = "";
      req.on("data", (d: Buffer) => {
        text += d.toString("latin1");
        received[i] = text;
      });
      req.on("error", () => {});
      return req;
    });
    try {
      const deadline = Date.now() + 15_000;
      const heardFromAll = () => reqs.every((_, i) => (received[i] ?? "").length > 0);
      while (!heardFromAll() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(heardFromAll(), "every session got its first heartbeat").toBe(true);
      for (const s of ["a", "b"]) {
        const r = await client.call("POST", `/v1/streams/${s}/records`, {
          basin: BASIN,
          json: { records: [{ body: `live-${s}` }] },
        });
        expect(r.status).toBe(200);
      }
      const allLive = () => reqs.every((_, i) => (received[i] ?? "").includes(`live-${i % 4 < 2 ? "a" : "b"}`));
      while (!allLive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(allLive(), "the live record reached every session").toBe(true);
      expect(lite.stderr()).not.toContain("MaxListenersExceededWarning");
    } finally {
      for (const r of reqs) r.close();
      h2.close();
    }
  }, 30_000);
});
