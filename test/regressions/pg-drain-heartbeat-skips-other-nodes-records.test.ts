/**
 * Bug (issue 41, item 1): on a node's SIGTERM (a rolling restart) every read session got a
 * heartbeat with the reconnect flag whose tail was the stream's tail as the database knew it,
 * not what the session had delivered. Records other nodes had appended that this node had not
 * yet delivered lay in between, and svc's client resumed at that tail on another node: framed
 * followers silently lost records (12, 35 and 24 in three runs), SSE followers died with "the
 * server repeated record N".
 *
 * Now a session's heartbeat never announces a tail above what it delivered (the drain notice
 * announces where the session stands), and the client never moves its resume position past
 * the last record it received because of a heartbeat. Here node A reaches the database through
 * a 50 ms delaying link (so it delivers what B appends a little late, as a busy node would),
 * followers on A (framed and SSE, with B as the other endpoint) read while B appends, and A is
 * SIGTERMed right after B acked records A has not delivered yet: every follower resumes on B
 * and gets every record exactly once, and no heartbeat it saw named a record it had not
 * received.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Follower, follow, judge, until } from "../helpers/followers.js";
import { append, PgCluster, type PgNode } from "../helpers/pg-cluster.js";

const BASIN = `drain-beat-${process.pid}`;
const TOTAL = 600;
const PER_APPEND = 3;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node({ delayMs: 50 });
  b = await cluster.node();
  expect((await b.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
  expect((await b.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: "s" } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

describe("followers on a node that is SIGTERMed while another node appends", () => {
  it("resume on the other node with every record exactly once", async () => {
    const endpoints = [a.lite.url, b.lite.url];
    const followers: Follower[] = [];
    for (let i = 0; i < 3; i++) {
      followers.push(follow(endpoints, a.lite.token, BASIN, "s", "session", `framed ${i}`));
      followers.push(follow(endpoints, a.lite.token, BASIN, "s", "sse", `sse ${i}`));
    }
    try {
      await until(
        () => followers.every((f) => f.heartbeats > 0 || f.error !== undefined),
        20_000,
        () => "every follower waiting at the tail",
      );
      let appended = 0;
      const appendUpTo = async (n: number): Promise<void> => {
        while (appended < n) {
          const records = Array.from({ length: PER_APPEND }, (_, k) => ({ body: `r${appended + k}` }));
          const r = await append(b.client, BASIN, "s", records);
          expect(r.status, r.text()).toBe(200);
          appended += PER_APPEND;
        }
      };
      await appendUpTo(TOTAL / 3);
      await until(
        () => followers.every((f) => f.seqs.length >= TOTAL / 3 || f.error !== undefined),
        20_000,
        () => "the followers caught up",
      );
      // B acks three more records; A learns of them a notification and a read later (50 ms
      // each way), and is SIGTERMed now, before it has delivered them.
      await appendUpTo(appended + PER_APPEND);
      const stopped = a.lite.stop();
      await appendUpTo(TOTAL);
      expect(await stopped).toBe(0);
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
});
