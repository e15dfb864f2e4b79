/**
 * Bug (issue 43, item 3): the live fan-out held ~270 KiB per SSE follower that never read. A token
 * that may only read one stream (which others write to) opened 3,000 SSE followers on one
 * connection and grew lite by 673-794 MiB: a follower left the live path only once 256 KiB waited
 * unsent on it, and an SSE batch of up to 16 KiB was copied per follower (its event and id lines
 * before the shared data line), so the bytes "encoded once" were not shared. Nothing capped the
 * read sessions of one token or one connection.
 *
 * Now the data line is shared at any size (written after the session's own lines, not copied
 * with them), a follower leaves the live path once two of its live writes wait unsent (it then
 * waits for its connection to send everything before it reads storage), and one token, and one
 * connection, may have only so many read sessions open (SVC_LITE_READ_SESSIONS_PER_TOKEN, 10,000;
 * SVC_LITE_READ_SESSIONS_PER_CONNECTION, 1000): one more is 429 `rate_limited`. On lmdb and on
 * PostgreSQL.
 */
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreams, eventually, type Lite, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";

const FOLLOWERS = 900;

describe.each(["lmdb", "postgres"] as const)("on %s", (storage) => {
  let lite: Lite;
  let drop: (() => Promise<void>) | undefined;
  let reader: string;
  const basin = uniqueBasin("sse-mem");
  const conns: http2.ClientHttp2Session[] = [];

  beforeAll(async () => {
    const env = { SVC_LITE_READ_SESSIONS_PER_TOKEN: "920", SVC_LITE_READ_SESSIONS_PER_CONNECTION: "950" };
    if (storage === "lmdb") lite = await startLite({ env });
    else {
      const db = await freshDatabase();
      drop = db.drop;
      lite = await startLite({ postgres: db.url, env });
    }
    await createStreams(lite, basin, ["s"]);
    const r = await liteClient(lite).call("POST", "/v1/access-tokens", {
      json: { id: "reader", scope: { basins: { exact: basin }, streams: { exact: "s" }, ops: ["read"] } },
    });
    expect(r.status, r.text()).toBe(201);
    reader = r.json().access_token as string;
  });
  afterAll(async () => {
    for (const c of conns) c.destroy();
    await lite?.stop();
    await drop?.();
  });

  function rssMiB(): number {
    return Number(/RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${lite.pid}/status`, "utf8"))![1]) / 1024;
  }

  async function connection(windowSize?: number): Promise<http2.ClientHttp2Session> {
    const conn = http2.connect(
      lite.url,
      windowSize === undefined ? {} : { settings: { initialWindowSize: windowSize } },
    );
    conn.on("error", () => undefined);
    conns.push(conn);
    await new Promise<void>((resolve) => conn.once("remoteSettings", () => resolve()));
    return conn;
  }

  /** An SSE read of s from its tail on `conn`; resolves with its status and the stream. */
  function follow(
    conn: http2.ClientHttp2Session,
    token: string,
  ): Promise<{ status: number; s: http2.ClientHttp2Stream }> {
    const s = conn.request({
      ":path": "/v1/streams/s/records?tail_offset=0",
      authorization: `Bearer ${token}`,
      "svc-basin": basin,
      accept: "text/event-stream",
    });
    s.on("error", () => undefined);
    return new Promise((resolve) => s.once("response", (h) => resolve({ status: Number(h[":status"]), s })));
  }

  describe("SSE followers that never read", () => {
    it("hold about one batch each, the batches' bytes shared", async () => {
      const stuck = await connection(0);
      const opened = await Promise.all(Array.from({ length: FOLLOWERS }, () => follow(stuck, reader)));
      expect(opened.every((o) => o.status === 200)).toBe(true);
      // A follower that reads, opened last: once it has every batch, the fan-out offered them all.
      const { s: good } = await follow(await connection(), reader);
      let text = "";
      good.on("data", (c: Buffer) => {
        text += c.toString();
      });
      const warm = rssMiB();
      const body = "x".repeat(8 * 1024);
      for (let i = 0; i < 48; i++) {
        const r = await liteClient(lite).call("POST", "/v1/streams/s/records", {
          basin,
          json: { records: [{ body }] },
        });
        expect(r.status).toBe(200);
      }
      await eventually(async () => text.includes("id: 47,"), 20_000, 50);
      const grown = rssMiB() - warm;
      console.log(`${FOLLOWERS} never-reading SSE followers, 48 batches of 8 KiB: lite grew ${grown.toFixed(1)} MiB`);
      expect(grown).toBeLessThan(40);
    }, 60_000);

    it("are capped per token and per connection: one more is 429 rate_limited", async () => {
      // The token has 901 sessions open (the test above): 19 more reach its cap of 920.
      const other = await connection();
      const more = await Promise.all(Array.from({ length: 19 }, () => follow(other, reader)));
      expect(more.every((o) => o.status === 200)).toBe(true);
      const refused = await follow(other, reader);
      expect(refused.status).toBe(429);
      // The stuck connection has 900: the root token may open 50 more there, not 51.
      const stuck = conns[0]!;
      const root = await Promise.all(Array.from({ length: 50 }, () => follow(stuck, lite.token)));
      expect(root.every((o) => o.status === 200)).toBe(true);
      expect((await follow(stuck, lite.token)).status).toBe(429);
    }, 30_000);
  });
});
