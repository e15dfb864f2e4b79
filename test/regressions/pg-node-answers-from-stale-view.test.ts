/**
 * Bug (found by the ordering checker on the multi-node histories, C5 and C4): a lite node on
 * shared PostgreSQL storage answered from its own view of a stream's tail, which can be wrong
 * both ways while it has appends in flight:
 *
 *   - a 412 seq_num_mismatch reported the node's next assignable position, counting its own
 *     in-flight appends; when those then failed with 409 (another node had appended first),
 *     the position reported was one the stream never had;
 *   - check-tail reported the node's durable tail although the stored tail, read at the
 *     start of the request, was already further (another node's acked append): a stale read.
 *
 * Made deterministic here: node B's view is made stale (its notification connection is
 * killed while node A appends), an append on B's open session is held in flight by a lock
 * on the tails table, and meanwhile B answers a check-tail and a conditional unary append.
 * The check-tail must report the stored tail (3), not B's view (2). Since the database became
 * the sequencer, B's in-flight append no longer loses the race: it lands at the stored tail
 * (3..5) once the lock is gone, and the conditional append queued behind it on B is judged by
 * the database right after it, so its 412 reports the stored tail at that moment (5): a tail
 * the stream really had, never B's own view.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { SeqNumMismatchError, type SvcError } from "../../src/errors.js";
import { type Lite, startLite } from "../helpers/lite.js";
import { freshDatabase, testPostgresUrl } from "../helpers/postgres.js";

const BASIN = `stale-view-${process.pid}`;
const enc = new TextEncoder();
const rec = (body: string) => ({ headers: [], body: enc.encode(body) });

let db: Awaited<ReturnType<typeof freshDatabase>>;
let a: Lite;
let b: Lite;
const clients: SvcClient[] = [];

function stream(node: Lite) {
  const c = new SvcClient({ accountEndpoint: node.url, basinEndpoint: node.url, accessToken: node.token, retries: 0 });
  clients.push(c);
  return c.basin(BASIN).stream("s");
}

beforeAll(async () => {
  db = await freshDatabase();
  a = await startLite({ postgres: db.url });
  // B polls tails only once a minute: with its notifications cut, its view stays stale.
  b = await startLite({ postgres: db.url, env: { SVC_LITE_PG_POLL_MS: "60000" } });
  const c = new SvcClient({ accountEndpoint: a.url, basinEndpoint: a.url, accessToken: a.token });
  await c.basins.create(BASIN);
  await c.basin(BASIN).streams.create("s");
  await c.close();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await a?.kill9().catch(() => undefined);
  await b?.kill9().catch(() => undefined);
  await db?.drop();
});

describe("a node with appends in flight on shared storage", () => {
  it("reports the stored tail in a 412 and in check-tail, not its own view", async () => {
    const admin = new pg.Client({
      connectionString: testPostgresUrl()!.replace(/\/[^/]*$/, `/${new URL(db.url).pathname.slice(1)}`),
    });
    await admin.connect();
    try {
      await stream(a).append({ records: [rec("a0")] }); // tail 1
      const session = await stream(b).appender({ ackTimeoutMs: 10_000 });
      expect((await session.append({ records: [rec("b0")] })).end.seqNum).toBe(2); // B's view: 2

      // B stops hearing about other nodes; A appends: the stored tail is 3, B still thinks 2.
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc lite listener' AND datname = current_database()",
      );
      await new Promise((r) => setTimeout(r, 100)); // gone before A's notification (it reconnects after 1 s)
      expect((await stream(a).append({ records: [rec("a1")] })).end.seqNum).toBe(3);

      // Hold B's next write in flight: svc_tails is locked against writes (reads go on). A
      // row lock would not do: an UPDATE whose condition the row fails does not wait for it.
      await admin.query("BEGIN");
      await admin.query("LOCK TABLE svc_tails IN EXCLUSIVE MODE");
      let settledBeforeCommit = true;
      let committed = false;
      const inflight = session
        .append({ records: [rec("b1"), rec("b2")] })
        .then(
          () => undefined,
          (e: SvcError) => e,
        ) // B sequences it at 2..4
        .finally(() => {
          settledBeforeCommit = !committed;
        });
      await new Promise((r) => setTimeout(r, 300));

      const tail = await stream(b).checkTail();
      const conditional = stream(b)
        .append({ records: [rec("b3")], matchSeqNum: 2 })
        .then(
          () => undefined,
          (e: SvcError) => e,
        );
      await new Promise((r) => setTimeout(r, 300));
      committed = true;
      await admin.query("COMMIT");

      const held = await inflight;
      console.log(
        `in-flight append settled ${settledBeforeCommit ? "BEFORE" : "after"} the lock was released: ${held?.code} ${held?.message}; check-tail ${tail.seqNum}; 412 ${((await conditional) as SeqNumMismatchError)?.expected}`,
      );
      expect(tail.seqNum, "check-tail on B while its append is in flight").toBe(3);
      const refused = await conditional;
      expect(refused).toBeInstanceOf(SeqNumMismatchError);
      expect((refused as SeqNumMismatchError).expected, "the 412 reports the stored tail when it was judged").toBe(5);
      expect(await inflight, "B's in-flight append landed (the database sequences it)").toBeUndefined();
      session.abort();
      expect((await stream(a).checkTail()).seqNum).toBe(5);
    } finally {
      await admin.query("ROLLBACK").catch(() => undefined);
      await admin.end();
    }
  }, 60_000);
});
