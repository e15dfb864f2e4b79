/**
 * Bug: a node whose listening connection died silently (no reset, no FIN: a partition of that
 * one connection, a NAT or firewall that forgot it) never took over the periodic sweep, so
 * when the node sweeping then died, no node swept at all. The sweep's leadership was a session
 * advisory lock asked for on the listening connection: the question hung there with no
 * deadline, the janitor's `asking` flag stayed set, and it never asked again; the connection
 * had no keepalive and nothing checked it. An empty stream stayed 8-15 s past its
 * eligibility, and a basin deleted through that node stayed "deleting" (409 on re-create).
 *
 * Reproduced with two nodes: A takes the sweep, B reaches the database through a proxy that
 * then silences B's listening connection for good; A is killed with SIGKILL. Expected: B
 * notices (it logs the lost notifications and makes the connection again within a few
 * seconds), meanwhile still delivers another node's appends to a long poll through its poll,
 * takes the sweep's lease within TAKEOVER_MS of A's death and sweeps: a stream empty with
 * `delete_on_empty.min_age_secs: 1` is deleted, and a basin deleted through B can be created
 * again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  append,
  firstTime,
  LEADS,
  LEASE_MS,
  logged,
  PgCluster,
  type PgNode,
  SWEEP_MS,
  show,
  sleep,
  TAKEOVER_MS,
} from "../helpers/pg-cluster.js";

const ENV = { SVC_LITE_SWEEP_MS: String(SWEEP_MS), SVC_LITE_SWEEP_LEASE_MS: String(LEASE_MS) };
/** What the machine's load may add to a bound. */
const SLACK_MS = 2_000;
/** A silenced listening connection is replaced within: a check a second, its 2 s deadline, a reconnect a second later. */
const RELISTEN_MS = 1_000 + 2_000 + 1_000;
const BASIN = `dead-listener-${process.pid}`;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node({ env: ENV });
  expect(await firstTime(() => logged(a, LEADS) > 0, 10_000), "A takes the sweep").toBeDefined();
  b = await cluster.node({ delayMs: 0, env: ENV });
  expect((await a.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

describe("a node whose listening connection died silently", () => {
  it("notices, polls meanwhile, and takes over the sweep when the sweeping node dies", async () => {
    const s = await a.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: "live" } });
    expect(s.status, show(s)).toBe(201);
    expect(
      await firstTime(() => b.proxy!.silence("svc lite listener") === 1, 5_000),
      "B's listening connection is up",
    ).toBeDefined();
    const silenced = Date.now();
    const relistened = firstTime(
      () => logged(b, "database notifications lost") > 0 && logged(b, "database notifications back") > 0,
      RELISTEN_MS + SLACK_MS,
    );

    // Meanwhile B still delivers what another node appends (its poll stands in).
    const poll = b.client.call("GET", "/v1/streams/live/records", { basin: BASIN, query: { seq_num: 0, wait: 10 } });
    await sleep(200);
    const appended = Date.now();
    expect((await append(a.client, BASIN, "live", [{ body: "while deaf" }])).status).toBe(200);
    const got = await poll;
    expect(got.json().records.map((r: { body: string }) => r.body)).toEqual(["while deaf"]);
    expect(Date.now() - appended, "delivered within the 1 s poll").toBeLessThan(1_000 + SLACK_MS);

    expect(logged(b, LEADS), "B does not lead while A does").toBe(0);

    await a.lite.kill9();
    const died = Date.now();
    const empty = await b.client.call("POST", "/v1/streams", {
      basin: BASIN,
      json: { stream: "empty", config: { delete_on_empty: { min_age_secs: 1 } } },
    });
    expect(empty.status, show(empty)).toBe(201);
    const gone = `${BASIN}-gone`;
    expect((await b.client.call("POST", "/v1/basins", { json: { basin: gone } })).status).toBe(201);
    expect((await b.client.call("DELETE", `/v1/basins/${gone}`)).status).toBe(202);

    const took = await firstTime(() => logged(b, LEADS) > 0, TAKEOVER_MS + SLACK_MS);
    expect(took, "B takes the sweep's lease").toBeDefined();
    const deleted = await firstTime(
      async () => {
        const r = await b.client.call("GET", "/v1/streams/empty/records/tail", { basin: BASIN });
        return r.status === 404 || r.status === 409;
      },
      TAKEOVER_MS + 1_000 + SLACK_MS,
    );
    const recreated = await firstTime(
      async () => (await b.client.call("POST", "/v1/basins", { json: { basin: gone } })).status === 201,
      TAKEOVER_MS + SLACK_MS,
    );
    console.log(
      `after A died: B led at +${took! - died} ms, the empty stream was deleted at +${deleted === undefined ? "never" : deleted - died} ms, ` +
        `the deleted basin could be created again at +${recreated === undefined ? "never" : recreated - died} ms`,
    );
    expect(deleted, "the empty stream is deleted by B's sweep").toBeDefined();
    expect(recreated, "the basin deleted through B can be created again").toBeDefined();

    const back = await relistened;
    expect(back, `B made its listening connection again: ${b.lite.stderr()}`).toBeDefined();
    console.log(`B listened again ${back! - silenced} ms after its connection went silent`);
  }, 90_000);
});
