/**
 * Bug (issue 41, item 5): the sweep's lease expired by the database's clock alone. If that
 * clock stepped back an hour just as the lease's holder died, the row's expiry lay an hour
 * ahead of now(), and no node swept for that hour (the stated bound for another node to take
 * over is about 4 s: a term and a third).
 *
 * A holder renews its lease for one term from now(): an expiry further ahead than a term can
 * only come from a clock that stepped back (or a row written by hand). Now a node judges such
 * an expiry as expired when it tries to take the lease. Reproduced with two nodes: the holder
 * is killed (SIGKILL) and its row given the expiry a stepped-back clock leaves (an hour ahead);
 * the other node takes the lease within the takeover bound and sweeps (a stream empty with a
 * 1 s minimum age is deleted).
 */
import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { firstTime, LEADS, LEASE_MS, logged, PgCluster, SWEEP_MS, show, TAKEOVER_MS } from "../helpers/pg-cluster.js";

const ENV = { SVC_LITE_SWEEP_MS: String(SWEEP_MS), SVC_LITE_SWEEP_LEASE_MS: String(LEASE_MS) };
/** What the machine's load may add to a bound. */
const SLACK_MS = 2_000;

let cluster: PgCluster | undefined;
let admin: pg.Client | undefined;

afterAll(async () => {
  await admin?.end();
  await cluster?.close();
});

describe("a lease whose expiry lies an hour ahead (the database's clock stepped back)", () => {
  it("is taken over within the takeover bound, and the sweep runs", async () => {
    cluster = await PgCluster.create();
    const a = await cluster.node({ env: ENV });
    admin = await cluster.admin();
    expect(await firstTime(() => logged(a, LEADS) === 1, 10_000), "the first node leads").toBeDefined();
    const b = await cluster.node({ env: ENV });

    // The holder dies just as the database's clock steps back an hour: its row now expires an hour ahead.
    await a.lite.kill9();
    await admin.query("UPDATE svc_leases SET expires_at = now() + interval '1 hour' WHERE name = 'sweep'");
    const planted = Date.now();
    const took = await firstTime(() => logged(b, LEADS) === 1, TAKEOVER_MS + SLACK_MS);
    console.log(`lease left an hour ahead: taken over after ${took === undefined ? "never" : took - planted} ms`);
    expect(took, `no node leads the sweep: ${b.lite.stderr()}`).toBeDefined();
    expect(took! - planted).toBeLessThanOrEqual(TAKEOVER_MS + SLACK_MS);

    const basin = `clock-stepped-${process.pid}`;
    expect((await b.client.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    const made = await b.client.call("POST", "/v1/streams", {
      basin,
      json: { stream: "empty", config: { delete_on_empty: { min_age_secs: 1 } } },
    });
    expect(made.status, show(made)).toBe(201);
    const gone = await firstTime(
      async () => (await admin!.query("SELECT 1 FROM svc_streams WHERE name = 'empty'")).rows.length === 0,
      1_000 + TAKEOVER_MS + SLACK_MS,
    );
    expect(gone, "the sweep deletes the empty stream").toBeDefined();
  }, 60_000);
});
