/**
 * The ordering checker on multi-node histories: three svc lite nodes on one PostgreSQL
 * database, node 0 next to it and nodes 1 and 2 behind delaying proxies (2 ms and 5 ms each
 * way: a database on another host). For each of the four workflows of the ordering suite
 * (regular, match-seq-num, fencing, trim) six logical clients run the recorded workload of
 * test/helpers/history on one stream; each client id sends all its ops (unary appends, append
 * sessions, reads, check-tails, read sessions) through one node, client c through node c % 3,
 * so every node serves two clients and their match_seq_num chains and fencing races cross
 * nodes. The history must pass C1-C8 and the search checker, with trims held to the protocol's
 * "trims are asynchronous" (each node learns a trim point within its cache bound, so a read
 * may still return records below a trim acknowledged through another node; a read may never
 * have a hole after records it returned); the run also counts, from the final stream, acked
 * records lost, records stored twice and gaps, which must all be 0.
 *
 * CI tier: one history of 1,000 ops per workflow. Extended tier (RELIABILITY=extended): six
 * histories of 4,000 ops per workflow, on a private PostgreSQL so it can be restarted; in
 * every history a node (each round another) is killed with SIGKILL at 20 % of the ops (its
 * clients move to the next node alive), started again at 45 % (they move back), and the
 * database is shut down, left down ~1 s and started again at 60 %. Indefinite outcomes are
 * allowed; acked lost, duplicates and gaps stay 0. Two silent faults follow (bytes dropped,
 * sockets left open, through the node's proxy): at 50 % node 1 or 2 is cut off from the
 * database for 2 s (a partition), and at 75 % the other one's listening and read connections go
 * silent for good (a connection that died without a word): it must notice and make its
 * listening connection again. A failing history is kept under
 * test-artifacts/pg-multi-node-workflows-<seed>/ and replays with SEED=<seed>.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { StreamClient } from "../../src/client/stream.js";
import { keepArtifacts } from "../helpers/artifacts.js";
import {
  type AppendOp,
  type History,
  historyLines,
  isDataKey,
  now,
  Recorder,
  recordKey,
  verify,
} from "../helpers/history/index.js";
import { ackedTrimPoint, readFinal, runWorkload, WORKFLOWS, type Workflow } from "../helpers/history/workload.js";
import { type Database, firstTime, logged, PgCluster, type PgNode, sleep } from "../helpers/pg-cluster.js";
import { startPostgres } from "../helpers/postgres.js";
import { rng } from "../helpers/seeded.js";
import { EXTENDED, suiteSeed, tierCount } from "../helpers/tier.js";

const SEED = suiteSeed("pg-multi-node-workflows");
const OPS = tierCount(1000, 4000, "PG_WORKFLOW_OPS");
/** Histories per workflow; in the extended tier each kills another node. */
const ROUNDS = tierCount(1, 6, "PG_WORKFLOW_ROUNDS");
const CLIENTS = 6;
const DELAYS = [undefined, 2, 5];
const BASIN = `workflows-${process.pid}`;

let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
let cluster: PgCluster;
const nodes: PgNode[] = [];
const alive = [true, true, true];
/** One client per node, replaced when the node restarts (its port changes). */
const svc: SvcClient[] = [];
const oldClients: SvcClient[] = [];

function connect(k: number): void {
  const lite = nodes[k]!.lite;
  if (svc[k]) oldClients.push(svc[k]!);
  svc[k] = new SvcClient({
    accountEndpoint: lite.url,
    basinEndpoint: lite.url,
    accessToken: lite.token,
    timeoutMs: 10_000,
  });
}

/** Client c's node: c % 3, or the next one alive. */
function nodeOf(client: number): number {
  for (let k = 0; k < 3; k++) if (alive[(client + k) % 3]) return (client + k) % 3;
  throw new Error("no node alive");
}

/** The extended tier's private PostgreSQL (it is restarted), else a database of the run's. */
async function database(): Promise<Database | undefined> {
  if (!EXTENDED) return undefined;
  server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query("CREATE DATABASE workflows");
  await admin.end();
  return { url: `postgres://postgres@127.0.0.1:${server.port}/workflows`, drop: async () => undefined };
}

beforeAll(async () => {
  cluster = await PgCluster.create(await database());
  nodes.push(await cluster.node({ delayMs: DELAYS[0] }));
  // Started together: the migrations ran with the first; these two race for the advisory lock.
  nodes.push(...(await Promise.all([cluster.node({ delayMs: DELAYS[1] }), cluster.node({ delayMs: DELAYS[2] })])));
  for (let k = 0; k < 3; k++) connect(k);
  await svc[0]!.basins.create(BASIN, {
    config: { default_stream_config: { retention_policy: { infinite: {} } } } as never,
  });
}, 90_000);

afterAll(async () => {
  await Promise.all([...svc, ...oldClients].map((c) => c.close().catch(() => undefined)));
  await cluster?.close();
  await server?.stop();
}, 60_000);

interface Faults {
  kills: number;
  dbRestarts: number;
  partitions: number;
  /** Connections silenced, the node whose they were, and its "notifications back" lines then. */
  silenced: number;
  deaf: number | undefined;
  backBefore: number;
  resumedAt: number | undefined;
  log: string[];
}

/**
 * The extended tier's schedule for one history (op numbers as fractions of OPS): kill -9 of
 * `victim`, its restart, a database restart. Faults run in the background, one after the
 * other; while one runs, ops still go out, at most one per 100 ms per client (an outage must
 * not use up the ops before the database is back).
 */
function faultPlan(
  victim: number,
  faults: Faults,
): { beforeOp: (n: number) => Promise<void>; done: () => Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  let running = 0;
  const at = (frac: number) => Math.floor(OPS * frac);
  const step = (what: string, f: () => Promise<void>): void => {
    running++;
    chain = chain
      .then(async () => {
        const t0 = performance.now();
        await f();
        faults.log.push(`${what} (${Math.round(performance.now() - t0)} ms)`);
      })
      .finally(() => {
        running--;
      });
  };
  const beforeOp = async (n: number): Promise<void> => {
    if (!EXTENDED) return;
    if (n === at(0.2))
      step(`kill -9 node ${victim}`, async () => {
        alive[victim] = false;
        await nodes[victim]!.lite.kill9();
        faults.kills++;
      });
    if (n === at(0.45))
      step(`restart node ${victim}`, async () => {
        await nodes[victim]!.lite.restart();
        connect(victim);
        alive[victim] = true;
      });
    // The partition and the silenced connections hit nodes 1 and 2 (node 0 has no proxy).
    const cut = victim === 0 ? 1 : 3 - victim;
    if (n === at(0.5))
      step(`node ${cut} cut off from the database for 2 s`, async () => {
        nodes[cut]!.proxy!.partition();
        await sleep(2_000);
        nodes[cut]!.proxy!.heal();
        faults.partitions++;
      });
    if (n === at(0.6)) {
      step("database down ~1 s and up again", async () => {
        await server!.halt();
        await sleep(1_000);
        await server!.resume();
        faults.dbRestarts++;
        faults.resumedAt = now();
      });
    }
    if (n === at(0.75))
      step(`node ${3 - cut}'s listening and read connections silenced`, async () => {
        const proxy = nodes[3 - cut]!.proxy!;
        faults.deaf = 3 - cut;
        faults.backBefore = logged(nodes[3 - cut]!, "database notifications back");
        faults.silenced += proxy.silence("svc lite listener") + proxy.silence("svc lite reads");
      });
    if (running > 0) await sleep(100);
  };
  return { beforeOp, done: () => chain };
}

/** Acked records not at their acked seq num, records stored twice, and holes in the final stream. */
function integrity(h: History, name: string): { lost: number; duplicates: number; gaps: number } {
  const final = h.final[name]!;
  const at = new Map(final.records.map((r) => [r.seq, r.key]));
  let lost = 0;
  for (const a of h.ops) {
    if (a.kind !== "append" || a.outcome !== "ok" || a.start === undefined) continue;
    a.records.forEach((k, i) => {
      if (a.start! + i >= final.first && at.get(a.start! + i) !== k) lost++;
    });
  }
  const keys = final.records.filter((r) => isDataKey(r.key)).map((r) => r.key);
  const gaps =
    final.records.filter((r, i) => r.seq !== final.first + i).length +
    (final.first + final.records.length === final.tail ? 0 : 1);
  return { lost, duplicates: keys.length - new Set(keys).size, gaps };
}

/** One recorded history of `workflow` on a stream of its own, checked; `round` picks the victim. */
async function history(workflow: Workflow, w: number, round: number): Promise<void> {
  const name = `wf-${workflow}-${round}`;
  const seed = SEED + 100 * w + round;
  await svc[(w + round) % 3]!.basin(BASIN).streams.create(name);
  // Each node has its own view of the trim point (bounded by its cache and polls): reads are
  // held to asynchronous trims (protocol §7.7; test/helpers/history/types.ts).
  const rec = new Recorder({
    suite: "pg-multi-node-workflows",
    seed: SEED,
    round,
    workflow,
    ops: OPS,
    clients: CLIENTS,
    delays: DELAYS,
    extended: EXTENDED,
    trims: "async",
  });
  const faults: Faults = {
    kills: 0,
    dbRestarts: 0,
    partitions: 0,
    silenced: 0,
    deaf: undefined,
    backBefore: 0,
    resumedAt: undefined,
    log: [],
  };
  const plan = faultPlan((w + round) % 3, faults);
  const perNode = [0, 0, 0];
  const streamFor = (client: number): StreamClient => {
    const k = nodeOf(client);
    perNode[k]!++;
    return svc[k]!.basin(BASIN).stream(name);
  };
  const began = performance.now();
  await runWorkload({
    stream: svc[0]!.basin(BASIN).stream(name),
    streamFor,
    name,
    recorder: rec,
    workflow,
    clients: CLIENTS,
    ops: OPS,
    random: rng(seed),
    beforeOp: plan.beforeOp,
  });
  await plan.done();
  const workloadMs = performance.now() - began;
  // Trims are carried out a sweep period after them (protocol.md §7.7): the final read waits.
  const final = await readFinal(
    svc[(w + round + 1) % 3]!.basin(BASIN).stream(name),
    recordKey,
    100,
    ackedTrimPoint(rec.ops, name),
  );
  const h = rec.history({ [name]: final });
  const checkStarted = performance.now();
  const v = verify(h);
  const checkMs = performance.now() - checkStarted;
  const { lost, duplicates, gaps } = integrity(h, name);
  const appends = h.ops.filter((o): o is AppendOp => o.kind === "append");
  const st = v.direct.stats;
  const ackedAfterRestart = appends.filter(
    (a) => a.outcome === "ok" && faults.resumedAt !== undefined && a.invoke > faults.resumedAt,
  ).length;
  if (!v.ok || lost + duplicates + gaps > 0) {
    keepArtifacts("pg-multi-node-workflows", SEED, {
      [`${name}.verdict.txt`]: `${v.summary}\nacked lost ${lost}, duplicates ${duplicates}, gaps ${gaps}\nfaults: ${faults.log.join("; ")}\n`,
      [`${name}.jsonl`]: historyLines(h),
    });
  }
  console.log(
    `pg multi-node ${name} SEED=${SEED}: ${st.ops} ops recorded (per node ${perNode.join("/")}), workload ${(workloadMs / 1000).toFixed(1)} s; ` +
      `final stream ${final.first}..${final.tail}; ${st.acked} acked batches (${st.ackedRecords} acked records) of ${st.appends} appends, ` +
      `${appends.filter((a) => a.outcome === "fail").length} refused, ${st.indefinite} indefinite ops; acked lost ${lost}, duplicates ${duplicates}, gaps ${gaps}; ` +
      `${EXTENDED ? `faults: ${faults.log.join(", ")}; ${ackedAfterRestart} appends acked after the database came back; ` : ""}` +
      `checker: C1-C8 ${v.direct.ok ? "ok" : `${v.direct.violations.length} violations`}, search ${v.search.result} (${v.search.steps} steps), ${(checkMs / 1000).toFixed(1)} s`,
  );
  expect(v.summary, `SEED=${SEED} ${name}: the ordering checker failed; history kept under test-artifacts/`).toBe("");
  expect({ lost, duplicates, gaps }).toEqual({ lost: 0, duplicates: 0, gaps: 0 });
  expect(st.ackedRecords).toBeGreaterThan(0);
  for (const n of perNode) expect(n, `ops per node ${perNode.join("/")}`).toBeGreaterThan(0);
  if (EXTENDED) {
    expect([faults.kills, faults.dbRestarts, faults.partitions]).toEqual([1, 1, 1]);
    expect(ackedAfterRestart, "appends succeed again after the database restart").toBeGreaterThan(0);
    expect(faults.silenced, "connections were silenced").toBeGreaterThan(0);
    const deaf = nodes[faults.deaf!]!;
    const back = await firstTime(() => logged(deaf, "database notifications back") > faults.backBefore, 10_000);
    expect(back, `node ${faults.deaf} listens again after its connection went silent`).toBeDefined();
  }
}

describe("the ordering checker on three PostgreSQL nodes, two behind a delaying proxy", () => {
  for (const [w, workflow] of WORKFLOWS.entries()) {
    it(
      `${workflow}: ${ROUNDS} x ${OPS} ops by ${CLIENTS} clients over 3 nodes${EXTENDED ? ", each with a node killed, one cut off, connections silenced and the database restarted" : ""} (SEED=${SEED})`,
      async () => {
        for (let round = 0; round < ROUNDS; round++) await history(workflow, w, round);
      },
      EXTENDED ? 1_500_000 : 60_000,
    );
  }
});
