/**
 * Bug (issue 41, item 1): a read session's periodic heartbeat carried the stream's tail as the
 * database knew it, asked at that moment, while records another node had appended reached
 * this node's followers only a notification and a read later. A heartbeat sent between the two
 * announced records the session had not delivered; svc's client moved its resume position to
 * that tail, and the live batch that followed, starting below it, killed the read with "the
 * server repeated record N" (4 of 40 and 4 of 20 reads, at 50 and 100 ms between node and
 * database).
 *
 * Now a periodic heartbeat announces the tail only up to what its session delivered, and the
 * client never moves its position past its last record because of a heartbeat. Node A reaches
 * the database through a delaying link (50, then 100 ms) and sends heartbeats every 10-30 ms
 * (SVC_LITE_HEARTBEAT_MS=30); followers on A (framed and SSE) read while B appends: every one
 * gets every record exactly once, and no heartbeat names a record it has not received.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Follower, follow, judge, until } from "../helpers/followers.js";
import { append, PgCluster, type PgNode } from "../helpers/pg-cluster.js";

const BASIN = `beat-race-${process.pid}`;
const TOTAL = 300;
const PER_APPEND = 2;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node({ delayMs: 50, env: { SVC_LITE_HEARTBEAT_MS: "30" } });
  b = await cluster.node();
  expect((await b.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

describe("periodic heartbeats on a node far from the database while another node appends", () => {
  for (const delayMs of [50, 100]) {
    it(`never move a follower past a record it has not received (${delayMs} ms to the database)`, async () => {
      a.proxy!.setDelay(delayMs);
      const stream = `s${delayMs}`;
      expect((await b.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream } })).status).toBe(201);
      const followers: Follower[] = [];
      for (let i = 0; i < 3; i++) {
        followers.push(follow([a.lite.url, b.lite.url], a.lite.token, BASIN, stream, "session", `framed ${i}`));
        followers.push(follow([a.lite.url, b.lite.url], a.lite.token, BASIN, stream, "sse", `sse ${i}`));
      }
      try {
        // Periodic heartbeats at the tail, before any record: the setting is in force.
        await until(
          () => followers.every((f) => f.heartbeats >= 3 || f.error !== undefined),
          20_000,
          () => followers.map((f) => `${f.name}: ${f.heartbeats} heartbeats`).join(", "),
        );
        for (let n = 0; n < TOTAL; n += PER_APPEND) {
          const records = Array.from({ length: PER_APPEND }, (_, k) => ({ body: `r${n + k}` }));
          const r = await append(b.client, BASIN, stream, records);
          expect(r.status, r.text()).toBe(200);
        }
        await until(
          () => followers.every((f) => f.seqs.at(-1) === TOTAL - 1 || f.error !== undefined),
          30_000,
          () => followers.map((f) => `${f.name}: ${f.seqs.length}`).join(", "),
        );
      } finally {
        await Promise.all(followers.map((f) => f.stop()));
      }
      expect(followers.map((f) => judge(f, TOTAL)).filter((p) => p !== undefined)).toEqual([]);
    }, 90_000);
  }
});
