/**
 * Found by a security review: on PostgreSQL, a role that may only CONNECT (PUBLIC's default on
 * a new database) could `LISTEN svc_lite` and learn basin and stream names as they were
 * created, reconfigured or deleted: the nodes' metadata hints carried them
 * (`m["basin","stream"]`).
 *
 * Now hints carry ids only. Reproduced with such a role listening while basins and streams
 * whose names hold a marker are created, reconfigured and deleted, and a token is issued:
 * no notification contains the marker. The hints still do their work: node B serves metadata
 * from a cache that only a hint can drop here (SVC_LITE_PG_CACHE_MS=600000), and sees a
 * reconfiguration and a basin's deletion made through node A within 1 s; the receiving node
 * maps the ids back to what it holds.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstTime, PgCluster, type PgNode, show } from "../helpers/pg-cluster.js";
import { testPostgresUrl } from "../helpers/postgres.js";

const role = `listener_${process.pid}`;
const PASSWORD = "listener-pw";
const MARK = `secret${process.pid}`;
/** A hint reaches another node within this (a notification's delay; the cache would keep the old value for 10 minutes). */
const HINT_MS = 1_000;
const SLACK_MS = 1_500;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;
let intruder: pg.Client;
const heard: string[] = [];

beforeAll(async () => {
  const root = new pg.Client({ connectionString: testPostgresUrl()! });
  await root.connect();
  await root.query(`CREATE ROLE ${role} LOGIN PASSWORD '${PASSWORD}'`);
  await root.end();
  cluster = await PgCluster.create();
  a = await cluster.node();
  b = await cluster.node({ env: { SVC_LITE_PG_CACHE_MS: "600000" } });
  const u = new URL(testPostgresUrl()!);
  u.pathname = new URL(cluster.url).pathname;
  u.username = role;
  u.password = PASSWORD;
  intruder = new pg.Client({ connectionString: u.toString() });
  await intruder.connect();
  intruder.on("notification", (n) => heard.push(n.payload ?? ""));
  await intruder.query("LISTEN svc_lite");
}, 60_000);

afterAll(async () => {
  await intruder?.end().catch(() => undefined);
  await cluster?.close();
  const root = new pg.Client({ connectionString: testPostgresUrl()! });
  await root.connect();
  await root.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await root.end();
});

describe("notifications between nodes", () => {
  it("name no basin, stream or token, and still make other nodes drop what changed", async () => {
    const basin = `${MARK}-basin`;
    const call = async (n: PgNode, method: string, path: string, opts: object, want: number): Promise<void> => {
      const r = await n.client.call(method, path, opts);
      expect(r.status, `${method} ${path}: ${show(r)}`).toBe(want);
    };
    await call(a, "POST", "/v1/basins", { json: { basin } }, 201);
    await call(a, "POST", "/v1/streams", { basin, json: { stream: `${MARK}-stream` } }, 201);
    const path = `/v1/streams/${MARK}-stream`;
    // B reads the stream's config (now cached for 10 minutes) and loads it.
    const age = async (): Promise<unknown> =>
      (await b.client.call("GET", path, { basin })).json().retention_policy?.age ?? "infinite";
    expect(await age()).toBe(604800);
    await call(b, "POST", `${path}/records`, { basin, json: { records: [{ body: "x" }] } }, 200);

    await call(a, "PATCH", path, { basin, json: { retention_policy: { age: 3600 } } }, 200);
    const patched = Date.now();
    const seen = await firstTime(async () => (await age()) === 3600, HINT_MS + SLACK_MS);
    expect(seen, "B sees the reconfiguration (the hint named the stream by id)").toBeDefined();

    await call(a, "DELETE", `/v1/basins/${basin}`, {}, 202);
    const deleted = Date.now();
    const refused = await firstTime(async () => {
      const r = await b.client.call("GET", `${path}/records/tail`, { basin });
      return r.status === 409 || r.status === 404;
    }, HINT_MS + SLACK_MS);
    expect(refused, "B sees the basin's deletion on its loaded stream (the hint named the basin by id)").toBeDefined();
    console.log(
      `through B: the reconfiguration seen after ${seen! - patched} ms, the basin's deletion after ${refused! - deleted} ms`,
    );

    await call(
      a,
      "POST",
      "/v1/access-tokens",
      {
        json: {
          id: `${MARK}-token`,
          scope: { basins: { prefix: "" }, streams: { prefix: "" }, op_groups: { stream: { read: true } } },
        },
      },
      201,
    );
    await firstTime(() => heard.includes("k"), 2_000);
    console.log(`heard: ${heard.filter((p) => !p.startsWith("t")).join(" ")}`);
    expect(heard.filter((p) => p.startsWith("m")).length, "metadata hints were sent").toBeGreaterThan(0);
    for (const p of heard) expect(p, "a notification names something").not.toContain(MARK);
  }, 60_000);
});
