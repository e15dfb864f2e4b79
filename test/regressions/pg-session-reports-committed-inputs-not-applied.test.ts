/**
 * Bug: on shared PostgreSQL, an append session told its client that inputs were NOT applied
 * (`not_applied`, a definite failure: safe to resend) when they had been stored. Found by
 * test/reliability/pg-multi-node-workflows (extended tier, trim workflow, database restart):
 * a session's three pipelined inputs went to the database in one group statement; the
 * statement committed, but the connection was lost before its answer came back, so the node
 * failed the whole group with 500 `storage` (outcome unknown). The session then sent one
 * terminal frame, for the first input, and by the protocol (§6.5: inputs after the failed
 * one were never applied) the client reported the other two as not applied. All three were
 * in the stream; a client resending "not applied" inputs would have stored them twice.
 *
 * Node A reaches the database through a delaying proxy (300 ms each way). A unary append
 * keeps the stream's one statement in flight while the session's three inputs queue behind
 * it, so they go to the database together. Once the database holds them (polled directly),
 * every connection of the database is terminated before the answer gets back to A.
 *
 * Expected: an input the client was told is definitely not applied is not in the stream; an
 * acked one is there at its acked place; only an input with an unknown outcome may be either.
 */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { StreamClient } from "../../src/client/stream.js";
import { SvcError } from "../../src/errors.js";
import { PgCluster, type PgNode, sleep } from "../helpers/pg-cluster.js";

const BASIN = `not-applied-${process.pid}`;
const enc = new TextEncoder();
const rec = (body: string) => ({ headers: [], body: enc.encode(body) });

let cluster: PgCluster;
let a: PgNode;
let svc: SvcClient;
let stream: StreamClient;
let admin: pg.Client;

beforeAll(async () => {
  cluster = await PgCluster.create();
  // Metadata stays cached on A: with the database 300 ms away only the appends wait for it.
  a = await cluster.node({ delayMs: 0, env: { SVC_LITE_PG_CACHE_MS: "600000" } });
  svc = new SvcClient({
    accountEndpoint: a.lite.url,
    basinEndpoint: a.lite.url,
    accessToken: a.lite.token,
    retries: 0,
    timeoutMs: 30_000,
  });
  await svc.basins.create(BASIN);
  await svc.basin(BASIN).streams.create("s");
  stream = svc.basin(BASIN).stream("s");
  await stream.append({ records: [rec("warm-unary")] });
  const warm = await stream.appender();
  await warm.append({ records: [rec("warm-session")] });
  await warm.close();
  admin = await cluster.admin();
}, 60_000);

afterAll(async () => {
  await admin?.end().catch(() => undefined);
  await svc?.close().catch(() => undefined);
  await cluster?.close();
});

/** The stored tail, read from the database itself. */
async function storedTail(): Promise<number> {
  return Number((await admin.query("SELECT coalesce(max(next_seq), 0) AS t FROM svc_tails")).rows[0].t);
}

describe("an append session whose group statement committed but whose answer was lost", () => {
  it("never reports a stored input as not applied", async () => {
    const before = await storedTail();
    a.proxy!.setDelay(300);
    const session = await stream.appender({ ackTimeoutMs: 30_000, reconnectBudgetMs: 0, retries: 0 });
    const busy = stream.append({ records: [rec("busy")] }).catch((e: unknown) => e);
    await sleep(50);
    const inputs = [2, 3, 4].map((n) => ({ records: Array.from({ length: n }, (_, i) => rec(`input${n}-${i}`)) }));
    const outcomes = inputs.map((input) =>
      session.append(input).then(
        (ack) => ({ ack, error: undefined }),
        (error: unknown) => ({ ack: undefined, error }),
      ),
    );
    // Everything stored (1 + 2 + 3 + 4 records): cut every connection before A hears back.
    const deadline = Date.now() + 20_000;
    while ((await storedTail()) < before + 10 && Date.now() < deadline) await sleep(5);
    expect(await storedTail(), "the session's inputs reached the database").toBe(before + 10);
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    const results = await Promise.all(outcomes);
    await busy;
    await session.close().catch(() => undefined);
    a.proxy!.setDelay(0);

    const stored = new Map<string, number>();
    const batch = await stream.readBatch({ seqNum: 0 }, { count: 1000 });
    for (const r of batch.records) stored.set(new TextDecoder().decode(r.body), r.seqNum);
    const wrong: string[] = [];
    results.forEach(({ ack, error }, k) => {
      const bodies = inputs[k]!.records.map((r) => new TextDecoder().decode(r.body));
      const at = bodies.map((b) => stored.get(b));
      if (ack) {
        if (at.some((s, i) => s !== ack.start.seqNum + i))
          wrong.push(`input ${k} acked at ${ack.start.seqNum} but stored at ${at.join(",")}`);
      } else if (error instanceof SvcError && !error.sideEffects && at.some((s) => s !== undefined)) {
        wrong.push(
          `input ${k} reported definitely not applied (${error.code}: ${error.message}) but stored at ${at.join(",")}`,
        );
      }
    });
    expect(wrong, wrong.join("\n")).toEqual([]);
  }, 90_000);
});
