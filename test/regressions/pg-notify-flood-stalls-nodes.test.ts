/**
 * Bug (issue 41 item 4, issue 43 item 8): a role that may only connect stalled every node with
 * `NOTIFY svc_lite`. Each notification dropped caches (tokens, basins, streams, loads in
 * flight), looked a basin up in the database and re-read tails; at 6-16k notifications a second
 * a node completed 2-8 requests in 5 s instead of ~360.
 *
 * Now notifications are coalesced (pg/hint-coalescer.ts): each key is read again at most once
 * per window, every 100 ms while more than 2000 a second arrive (logged), and no basin is looked
 * up for one then. Here two connections of a connect-only role flood the channel with
 * distinct payloads naming tokens, tails, streams and basins; requests through the node keep
 * completing at a fair share of their rate without the flood, and a genuine change (an append
 * through another node, to a read waiting at the tail) still arrives within a second.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LiteClient } from "../helpers/lite.js";
import { append, PgCluster, show, sleep } from "../helpers/pg-cluster.js";
import { testPostgresUrl } from "../helpers/postgres.js";

const role = `flooder_${process.pid}`;
const PASSWORD = "flooder-pw";
const BASIN = `notify-flood-${process.pid}`;
const MEASURE_MS = 3_000;

let cluster: PgCluster;

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: testPostgresUrl()! });
  await admin.connect();
  await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${PASSWORD}'`);
  await admin.end();
});

afterAll(async () => {
  await cluster?.close();
  const admin = new pg.Client({ connectionString: testPostgresUrl()! });
  await admin.connect();
  await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await admin.end();
});

/** Requests completed through `c` in MEASURE_MS, one at a time: an append, then a check-tail. */
async function rate(c: LiteClient): Promise<number> {
  const end = Date.now() + MEASURE_MS;
  let done = 0;
  while (Date.now() < end) {
    const r = await c.call("POST", "/v1/streams/s/records", { basin: BASIN, json: { records: [{ body: "x" }] } });
    expect(r.status, show(r)).toBe(200);
    const t = await c.call("GET", "/v1/streams/s/records/tail", { basin: BASIN });
    expect(t.status, show(t)).toBe(200);
    done += 2;
  }
  return done;
}

/** Connections of the connect-only role sending notifications until stopped; how many were sent. */
async function flood(connections: number): Promise<{ stop: () => Promise<number> }> {
  const u = new URL(testPostgresUrl()!);
  u.pathname = new URL(cluster.url).pathname;
  u.username = role;
  u.password = PASSWORD;
  let stopped = false;
  let sent = 0;
  const loops: Promise<void>[] = [];
  for (let k = 0; k < connections; k++) {
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    loops.push(
      (async () => {
        for (let round = 0; !stopped; round++) {
          const payloads = ["k", "t*", "m"];
          for (let i = 1; i <= 100; i++) {
            const n = (round * 100 + i) % 5000;
            payloads.push(`t${n + 1}`, `ms${n + 1}`, `mb${n + 1}`, `mB${n + 1}`);
          }
          await c.query("SELECT pg_notify('svc_lite', p) FROM unnest($1::text[]) p", [payloads]);
          sent += payloads.length;
          await sleep(50); // about 8k a second a connection: the flood was 6-16k a second
        }
        await c.end();
      })(),
    );
  }
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return sent;
    },
  };
}

describe("a flood of forged notifications from a role that may only connect", () => {
  it("leaves requests completing, and a genuine change still arrives", async () => {
    cluster = await PgCluster.create();
    const a = await cluster.node();
    const b = await cluster.node();
    expect((await a.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
    expect((await a.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: "s" } })).status).toBe(201);
    expect((await a.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: "w" } })).status).toBe(201);

    const quiet = await rate(a.client);
    const f = await flood(2);
    let loud: number;
    let arrivedMs: number | undefined;
    try {
      loud = await rate(a.client);
      // A read waiting at the tail on A gets what B appends.
      const waiting = a.client.call("GET", "/v1/streams/w/records", { basin: BASIN, query: { seq_num: 0, wait: 5 } });
      const appended = Date.now();
      expect((await append(b.client, BASIN, "w", [{ body: "genuine" }])).status).toBe(200);
      const r = await waiting;
      arrivedMs = Date.now() - appended;
      expect(r.status, show(r)).toBe(200);
      expect((r.json().records as { body: string }[]).map((x) => x.body)).toEqual(["genuine"]);
    } finally {
      const sent = await f.stop();
      console.log(
        `requests in ${MEASURE_MS} ms: ${quiet} without the flood, ${loud!} during it (${sent} notifications sent)`,
      );
    }
    console.log(`a genuine append reached a waiting read on another node after ${arrivedMs} ms`);
    expect(loud!, "requests through the node keep completing").toBeGreaterThanOrEqual(Math.max(10, quiet / 4));
    expect(arrivedMs!).toBeLessThanOrEqual(1_000 + 1_000);
    expect(a.lite.stderr()).toContain("notifications a second on channel svc_lite");
  }, 90_000);
});
