/**
 * Many followers of one stream (src/lite/store/live-fanout.ts, read-feed.ts): every record
 * reaches every follower, in order, without gaps or repeats, whatever wire each reads (svc/proto
 * sessions, SSE, unary long-polls); a follower that stops reading leaves the live path without
 * holding up the others and, once it reads again, still gets every record in order; a deleted
 * stream ends its followers. On PostgreSQL, followers on another node than the writer get every
 * record the same way. (Speed and cost are the bench's: `npm run bench`, fanout.)
 */
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { StreamClient } from "../../src/client/stream.js";
import { type Lite, startLite } from "../helpers/lite.js";
import { PgCluster } from "../helpers/pg-cluster.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
const RECORDS = 120;

/**
 * A follower through the client: the seq nums and bodies it got, in order. Unary long-polls end
 * by their count (an abort ends a long-poll only when it answers).
 */
function follow(stream: StreamClient, transport: "session" | "sse" | "unary", signal: AbortSignal) {
  const got: { seq: number; body: string }[] = [];
  const limits = transport === "unary" ? { count: RECORDS, wait: 30 } : {};
  const done = (async () => {
    try {
      for await (const ev of stream.read({ seqNum: 0 }, limits, { transport, signal })) {
        if (ev.type === "batch") for (const r of ev.records) got.push({ seq: r.seqNum, body: dec.decode(r.body) });
      }
    } catch (e) {
      if (!signal.aborted) throw e;
    }
  })();
  return { got, done };
}

/** Appends RECORDS records in batches of 1-3, one batch at a time. */
async function write(stream: StreamClient, prefix: string): Promise<void> {
  for (let i = 0; i < RECORDS; ) {
    const n = Math.min(1 + (i % 3), RECORDS - i);
    await stream.append({
      records: Array.from({ length: n }, (_, k) => ({ headers: [], body: enc.encode(`${prefix}-${i + k}`) })),
    });
    i += n;
  }
}

/** The seq nums of the records in the batch events of an SSE body (whole events only). */
function sseSeqs(text: string): number[] {
  const events = text.split("\n\n").slice(0, -1);
  return events
    .filter((e) => e.startsWith("event: batch"))
    .flatMap((e) => (JSON.parse(/^data: (.*)$/m.exec(e)![1]!).records as { seq_num: number }[]).map((r) => r.seq_num));
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

const expected = (prefix: string) => Array.from({ length: RECORDS }, (_, i) => ({ seq: i, body: `${prefix}-${i}` }));

describe("many followers of one stream (lmdb)", () => {
  let lite: Lite;
  let client: SvcClient;
  beforeAll(async () => {
    lite = await startLite();
    client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
    await client.basins.create("fanout-e2e-basin");
  }, 30_000);
  afterAll(async () => {
    await client?.close();
    await lite?.stop();
  });

  it("delivers every record to every follower in order, over sessions, SSE and long-polls", async () => {
    await client.basin("fanout-e2e-basin").streams.create("all");
    const stream = client.basin("fanout-e2e-basin").stream("all");
    const ac = new AbortController();
    const kinds = ["session", "sse", "unary"] as const;
    // Each follower is a client of its own, as followers are (one client's unary requests share
    // a pool of 16 connections, which 20 waiting long-polls would hold).
    const clients = Array.from(
      { length: 60 },
      () => new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token }),
    );
    const followers = clients.map((c, i) =>
      follow(c.basin("fanout-e2e-basin").stream("all"), kinds[i % 3]!, ac.signal),
    );
    await new Promise((r) => setTimeout(r, 300)); // they reach the tail and wait there
    await write(stream, "all");
    await until(() => followers.every((f) => f.got.length >= RECORDS), 20_000);
    ac.abort();
    await Promise.all(followers.map((f) => f.done));
    await Promise.all(clients.map((c) => c.close()));
    for (const [i, f] of followers.entries()) expect(f.got, `follower ${i} (${kinds[i % 3]})`).toEqual(expected("all"));
  }, 60_000);

  it("gives each SSE follower the id line of its own counts, also when followers at other counts share a batch", async () => {
    await client.basin("fanout-e2e-basin").streams.create("ids");
    const stream = client.basin("fanout-e2e-basin").stream("ids");
    await stream.append({ records: [0, 1, 2].map((i) => ({ headers: [], body: enc.encode(`before-${i}`) })) });
    const h2 = http2.connect(lite.url);
    h2.on("error", () => {});
    // Two fresh followers at 3 (counts from 0), and one resumed after seq 2 with the same count
    // and other bytes (a client's own Last-Event-ID): one lookup by count must not mix them up.
    const open = (lastEventId?: string) => {
      const req = h2.request({
        ":path": `/v1/streams/ids/records${lastEventId ? "" : "?seq_num=3"}`,
        authorization: `Bearer ${lite.token}`,
        "svc-basin": "fanout-e2e-basin",
        accept: "text/event-stream",
        ...(lastEventId ? { "last-event-id": lastEventId } : {}),
      });
      req.setEncoding("latin1");
      const f = { req, text: "" };
      req.on("data", (d: string) => {
        f.text += d;
      });
      return f;
    };
    const followers = [open(), open("2,0,777"), open()];
    // Each says it follows the tail with a heartbeat (protocol.md §6.6) before anything is appended.
    await until(() => followers.every((f) => f.text.includes("event: ping")), 10_000);
    await stream.append({ records: [{ headers: [], body: enc.encode("live-a") }] });
    await stream.append({
      records: [
        { headers: [], body: enc.encode("live-b") },
        { headers: [], body: enc.encode("c") },
      ],
    });
    const ids = (text: string) =>
      text
        .split("\n\n")
        .filter((e) => e.startsWith("event: batch"))
        .map((e) => /^id: (\d+),(\d+),(\d+)$/m.exec(e)!.slice(1).map(Number));
    await until(() => followers.every((f) => ids(f.text).at(-1)?.[0] === 5), 10_000);
    const [a, resumed, b] = followers.map((f) => ids(f.text));
    expect(a).toEqual(b);
    expect(a!.map(([seq, count]) => [seq, count])).toEqual([
      [3, 1],
      [5, 3],
    ]);
    expect(resumed!.map(([seq, count, bytes], k) => [seq, count! - a![k]![1]!, bytes! - 777 - a![k]![2]!])).toEqual([
      [3, 0, 0],
      [5, 0, 0],
    ]);
    for (const f of followers) f.req.close();
    h2.close();
  }, 30_000);

  it("lets a follower that stops reading fall behind alone, and gives it everything once it reads again", async () => {
    await client.basin("fanout-e2e-basin").streams.create("slow");
    const stream = client.basin("fanout-e2e-basin").stream("slow");
    const ac = new AbortController();
    const others = Array.from({ length: 10 }, () => follow(stream, "session", ac.signal));
    // The slow one: its own connection, a small window, and it stops reading at once.
    const h2 = http2.connect(lite.url, { settings: { initialWindowSize: 65_535 } });
    h2.on("error", () => {});
    const req = h2.request({
      ":path": "/v1/streams/slow/records?seq_num=0",
      authorization: `Bearer ${lite.token}`,
      "svc-basin": "fanout-e2e-basin",
      accept: "text/event-stream",
    });
    req.setEncoding("latin1");
    let text = "";
    req.on("data", (d: string) => {
      text += d;
    });
    await new Promise((r) => setTimeout(r, 300));
    req.pause();
    const big = "x".repeat(16 * 1024);
    for (let i = 0; i < 60; i++) await stream.append({ records: [{ headers: [], body: enc.encode(`${i}:${big}`) }] });
    // The others got everything while the slow one read nothing (far more than its 256 KiB of slack).
    await until(() => others.every((f) => f.got.length >= 60), 15_000);
    expect(others.map((f) => f.got.length)).toEqual(others.map(() => 60));
    req.resume();
    await until(() => sseSeqs(text).length >= 60, 15_000);
    expect(sseSeqs(text)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    req.close();
    h2.close();
    ac.abort();
    await Promise.all(others.map((f) => f.done));
  }, 60_000);

  it("serves no live record to followers whose token was revoked before it was appended", async () => {
    await client.basin("fanout-e2e-basin").streams.create("revoked");
    const secret = await client.accessTokens.issue({
      id: "fanout-follower",
      scope: {
        basins: { exact: "fanout-e2e-basin" },
        streams: { exact: "revoked" },
        op_groups: { stream: { read: true } },
      },
    });
    const reader = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: secret });
    const stream = client.basin("fanout-e2e-basin").stream("revoked");
    const ends = Array.from({ length: 8 }, (_, i) =>
      (async () => {
        const got: string[] = [];
        try {
          for await (const ev of reader
            .basin("fanout-e2e-basin")
            .stream("revoked")
            .read({ seqNum: 0 }, {}, { transport: i % 2 ? "sse" : "session", retries: 0 })) {
            if (ev.type === "batch") for (const r of ev.records) got.push(dec.decode(r.body));
          }
          return { got, code: "ended" };
        } catch (e) {
          return { got, code: (e as { code?: string }).code };
        }
      })(),
    );
    await new Promise((r) => setTimeout(r, 300));
    await stream.append({ records: [{ headers: [], body: enc.encode("while valid") }] });
    await new Promise((r) => setTimeout(r, 200));
    await client.accessTokens.revoke("fanout-follower");
    await stream.append({ records: [{ headers: [], body: enc.encode("after revocation") }] });
    const outcomes = await Promise.all(ends);
    await reader.close();
    for (const o of outcomes) {
      expect(o.got, "what a follower got").toEqual(["while valid"]);
      expect(o.code).toBe("authn");
    }
  }, 30_000);

  it("ends every follower when the stream is deleted", async () => {
    await client.basin("fanout-e2e-basin").streams.create("gone");
    const stream = client.basin("fanout-e2e-basin").stream("gone");
    const ends = Array.from({ length: 12 }, async () => {
      try {
        for await (const _ of stream.read({ seqNum: 0 }, {}, { transport: "session", retries: 0 })) {
          /* waits at the tail */
        }
        return "ended";
      } catch (e) {
        return (e as { code?: string }).code;
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    await client.basin("fanout-e2e-basin").streams.delete("gone");
    const outcomes = await Promise.all(ends);
    expect(outcomes.every((o) => o === "stream_deletion_pending" || o === "stream_not_found")).toBe(true);
  }, 30_000);
});

describe("followers on another PostgreSQL node than the writer", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await PgCluster.create();
  }, 30_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it("get every record, in order, as the writer's node's followers do", async () => {
    const [a, b] = [await cluster.node(), await cluster.node()];
    const clientOf = (n: typeof a) =>
      new SvcClient({ accountEndpoint: n.lite.url, basinEndpoint: n.lite.url, accessToken: n.lite.token });
    const [ca, cb] = [clientOf(a), clientOf(b)];
    try {
      await ca.basins.create("fanout-pg-basin");
      await ca.basin("fanout-pg-basin").streams.create("chat");
      const ac = new AbortController();
      const followers = [
        ...Array.from({ length: 20 }, (_, i) =>
          follow(cb.basin("fanout-pg-basin").stream("chat"), i % 2 ? "sse" : "session", ac.signal),
        ),
        ...Array.from({ length: 10 }, () => follow(ca.basin("fanout-pg-basin").stream("chat"), "session", ac.signal)),
      ];
      await new Promise((r) => setTimeout(r, 500));
      await write(ca.basin("fanout-pg-basin").stream("chat"), "pg");
      await until(() => followers.every((f) => f.got.length >= RECORDS), 20_000);
      ac.abort();
      await Promise.all(followers.map((f) => f.done));
      for (const [i, f] of followers.entries()) expect(f.got, `follower ${i}`).toEqual(expected("pg"));
    } finally {
      await ca.close();
      await cb.close();
    }
  }, 60_000);
});
