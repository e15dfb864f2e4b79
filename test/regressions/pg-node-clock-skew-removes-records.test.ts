/**
 * Bug (issue 41, item 2): on PostgreSQL a batch was stamped with the appending node's
 * Date.now() and judged by the judging node's (the sweep, and every read). With one node's
 * clock 2 h off, in 3 of 3 runs: 20 of 20 acknowledged records with 1 h retention were removed
 * from the database within 3 s; a stream with a 1 h minimum age was deleted within 3 s; records
 * appended through the slow node were invisible at once on the others.
 *
 * Now a node stamps and judges by the database's clock: it measures its offset from the
 * database at start and periodically (pg/db-clock.ts). Here one node's clock is skewed with
 * the test seam SVC_LITE_TEST_CLOCK_SKEW_MS (src/lite/storage/wall-clock.ts), once behind on the node
 * that appends, once ahead on the node that sweeps. Streams with a 1 s retention and a 1 s
 * minimum age show the sweep ran; the 1 h ones must be untouched, and readable at once through
 * the other node.
 */
import type pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { append, firstTime, LEADS, logged, PgCluster, type PgNode, show } from "../helpers/pg-cluster.js";

const HOURS_2 = 2 * 3600 * 1000;
const SWEEP = { SVC_LITE_SWEEP_MS: "200" };
const skewed = (ms: number): Record<string, string> => ({
  ...SWEEP,
  SVC_LITE_TEST_FAULTS: "enabled",
  SVC_LITE_TEST_CLOCK_SKEW_MS: String(ms),
});

let cluster: PgCluster | undefined;
let admin: pg.Client | undefined;

afterEach(async () => {
  await admin?.end();
  await cluster?.close();
  admin = cluster = undefined;
});

async function batches(stream: string): Promise<number> {
  const { rows } = await admin!.query(
    "SELECT count(*)::int AS n FROM svc_batches b JOIN svc_streams s ON s.id = b.id WHERE s.name = $1",
    [stream],
  );
  return rows[0].n as number;
}

async function exists(stream: string): Promise<boolean> {
  const { rows } = await admin!.query("SELECT 1 FROM svc_streams WHERE name = $1", [stream]);
  return rows.length === 1;
}

/** Streams made and appended to through `writer`; checked through `reader`, while `sweeper` leads the sweep. */
async function run(writer: PgNode, reader: PgNode): Promise<void> {
  const basin = `clock-skew-${process.pid}`;
  const c = writer.client;
  expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
  const make = async (stream: string, config: object): Promise<void> => {
    const r = await c.call("POST", "/v1/streams", { basin, json: { stream, config } });
    expect(r.status, show(r)).toBe(201);
  };
  await make("kept", { retention_policy: { age: 3600 } });
  await make("expiring", { retention_policy: { age: 1 } });
  await make("aging", { delete_on_empty: { min_age_secs: 3600 } });
  await make("aging-fast", { delete_on_empty: { min_age_secs: 1 } });
  for (let i = 0; i < 20; i++) expect((await append(c, basin, "kept", [{ body: `r${i}` }])).status).toBe(200);
  expect((await append(c, basin, "expiring", [{ body: "x" }])).status).toBe(200);

  const read = await reader.client.call("GET", "/v1/streams/kept/records", { basin, query: { seq_num: 0 } });
  expect(read.status, show(read)).toBe(200);
  expect((read.json().records as unknown[]).length, "records appended through the other node, read at once").toBe(20);

  // The sweep ran: the 1 s ones are gone.
  const swept = await firstTime(async () => (await batches("expiring")) === 0 && !(await exists("aging-fast")), 15_000);
  expect(swept, "the sweep removes what is 1 s old").toBeDefined();
  // and the 1 h ones stay (for a few more sweeps).
  const harmed = await firstTime(async () => (await batches("kept")) < 20 || !(await exists("aging")), 1_500);
  expect(harmed, "a record younger than its retention, or a stream younger than its minimum age, was removed").toBe(
    undefined,
  );
  expect(await batches("kept")).toBe(20);
}

async function leader(node: PgNode): Promise<void> {
  expect(await firstTime(() => logged(node, LEADS) > 0, 10_000), "the first node leads the sweep").toBeDefined();
}

describe("a node whose clock is 2 h off", () => {
  it("behind, appending: its records and streams are judged by the database's clock", async () => {
    cluster = await PgCluster.create();
    admin = await cluster.admin();
    const sweeper = await cluster.node({ env: SWEEP });
    await leader(sweeper);
    const slow = await cluster.node({ env: skewed(-HOURS_2) });
    await run(slow, sweeper);
    expect(slow.lite.stderr()).toMatch(/this node's clock is \d+ ms behind the database's/);
    const m = await slow.client.call("GET", "/metrics");
    expect(m.status, show(m)).toBe(200);
    const offset = Number(/^svc_lite_db_clock_offset_seconds (\S+)$/m.exec(m.text())?.[1]);
    expect(Math.abs(offset + HOURS_2 / 1000), `offset ${offset} s`).toBeLessThan(5);
  }, 60_000);

  it("ahead, sweeping: it removes nothing early", async () => {
    cluster = await PgCluster.create();
    admin = await cluster.admin();
    const fast = await cluster.node({ env: skewed(HOURS_2) });
    await leader(fast);
    const writer = await cluster.node({ env: SWEEP });
    await run(writer, fast);
  }, 60_000);
});
