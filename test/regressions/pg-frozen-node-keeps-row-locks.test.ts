/**
 * Bug (issue 41, item 3): a node cut off (or crashed) inside a metadata transaction kept its
 * row locks for hours. A stream's deletion is a multi-statement transaction that locks the
 * stream's tail row, and the nodes set neither idle_in_transaction_session_timeout nor TCP
 * keepalives on the server's side, so the database held the transaction until its OS keepalive
 * gave up (2 h). Meanwhile every append to that stream through healthy nodes waited out its
 * deadline and failed, most of them reported as of unknown outcome though nothing was written.
 *
 * Here node X's DELETE of the stream is caught inside its transaction (the test's own session
 * holds the stream's row, so X waits there holding the tail's lock), X is frozen (SIGSTOP: it
 * closes nothing, as a hung host or one cut off by a partition), and the test lets its
 * statement finish: X's session now sits idle in its transaction with the lock. An append through node Y
 * must succeed within the bound docs/multi-node.md states: the server ends X's session after
 * half a write deadline (--storage-timeout 4s here: 2 s), well within Y's own 4 s deadline.
 *
 * And an append that waits longer for a lock (a session that keeps the stream's tail locked and
 * stays alive) is refused with an answer, 409 transaction_conflict (nothing written: retry),
 * after three quarters of the deadline, instead of a 500 whose outcome is unknown.
 */
import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { append, firstTime, PgCluster, show } from "../helpers/pg-cluster.js";

const TIMEOUT = ["--storage-timeout", "4s"];
/** Half the write deadline, and what a loaded machine may add. */
const BOUND_MS = 2_000 + 1_500;

let cluster: PgCluster | undefined;
const clients: pg.Client[] = [];
let frozen: number | undefined;

afterAll(async () => {
  if (frozen !== undefined) process.kill(frozen, "SIGCONT");
  for (const c of clients) await c.end().catch(() => undefined);
  await cluster?.close();
});

describe("a node frozen inside a deletion's transaction", () => {
  it("holds the stream's lock for half a write deadline at most: appends through another node succeed", async () => {
    cluster = await PgCluster.create();
    const x = await cluster.node({ args: TIMEOUT });
    const y = await cluster.node({ args: TIMEOUT });
    const holder = await cluster.admin();
    const watcher = await cluster.admin();
    clients.push(holder, watcher);
    const basin = `cut-in-tx-${process.pid}`;
    expect((await y.client.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    const made = await y.client.call("POST", "/v1/streams", { basin, json: { stream: "s" } });
    expect(made.status, show(made)).toBe(201);
    expect((await append(y.client, basin, "s", [{ body: "before" }])).status).toBe(200);

    await holder.query("BEGIN");
    await holder.query("SELECT 1 FROM svc_streams WHERE name = 's' FOR UPDATE");
    const deleting = x.client.call("DELETE", "/v1/streams/s", { basin });
    const caught = await firstTime(async () => {
      const { rows } = await watcher.query(
        // This database's only: the server is shared with the other test files, running meanwhile.
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE svc_streams%'",
      );
      return rows.length === 1;
    }, 10_000);
    expect(caught, "X's deletion waits inside its transaction, holding the tail's lock").toBeDefined();
    process.kill(x.lite.pid!, "SIGSTOP");
    frozen = x.lite.pid;
    await holder.query("ROLLBACK"); // X's statement completes; X never reads the answer, its session idles in its transaction

    const started = Date.now();
    const r = await append(y.client, basin, "s", [{ body: "after" }]).finally(() => {
      process.kill(x.lite.pid!, "SIGCONT");
      frozen = undefined;
    });
    const took = Date.now() - started;
    console.log(`append through Y while X was frozen in its transaction: ${show(r)} after ${took} ms`);
    if (r.status !== 200)
      console.log(`DELETE through X: ${show(await deleting)}\nX:\n${x.lite.stderr()}\nY:\n${y.lite.stderr()}`);
    expect(r.status, show(r)).toBe(200);
    expect(took).toBeLessThanOrEqual(BOUND_MS);
    // The deletion never committed: the stream is there with both records.
    const read = await y.client.call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 0 } });
    expect((read.json().records as { body: string }[]).map((b) => b.body)).toEqual(["before", "after"]);
    await deleting;
  }, 60_000);

  it("an append waiting longer for a live holder's lock is refused as not applied", async () => {
    cluster ??= await PgCluster.create();
    const y = await cluster.node({ args: TIMEOUT });
    const holder = await cluster.admin();
    clients.push(holder);
    const basin = `held-lock-${process.pid}`;
    expect((await y.client.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    expect((await y.client.call("POST", "/v1/streams", { basin, json: { stream: "s" } })).status).toBe(201);
    await holder.query("BEGIN");
    await holder.query(
      "SELECT 1 FROM svc_tails t JOIN svc_streams s ON s.id = t.id WHERE s.name = 's' FOR UPDATE OF t",
    );
    const started = Date.now();
    const r = await y.client.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "x" }] } });
    const took = Date.now() - started;
    await holder.query("ROLLBACK");
    console.log(`append waiting for a held lock: ${show(r)} after ${took} ms`);
    expect(r.status, show(r)).toBe(409);
    expect(r.json().code).toBe("transaction_conflict");
    const tail = await y.client.call("GET", "/v1/streams/s/records/tail", { basin });
    expect(tail.json().tail.seq_num, "nothing was written").toBe(0);
  }, 60_000);
});
