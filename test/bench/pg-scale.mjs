#!/usr/bin/env node
/**
 * lite nodes on PostgreSQL at request level, against an lmdb node in the same run: 32
 * keep-alive clients, BENCH_PG_SECS (default 4) per figure, each on a fresh server.
 *
 * - check-tail per second and 10-record unary reads per second: an lmdb node, a node on
 *   PostgreSQL on loopback ("near"), and a node whose database is behind a proxy adding
 *   2 ms each way ("far"; the proxy runs in a process of its own, so the load generator's
 *   work never adds to the distance);
 * - 1-record unconditional unary appends to ONE stream through two nodes (and three), near
 *   and far: acked per second and refused (any non-200);
 * - one append session's records/s (1 KiB records, 100 per batch) on PostgreSQL near and far
 *   against lmdb's, in 3 rounds (the median round reported, every round listed);
 * - 30 streams, one session each, over 1, 2 and 3 nodes, near and far.
 *
 *   node test/bench/pg-scale.mjs      (build first)
 */
import pg from "pg";
import { Agent, request } from "undici";
import { SvcClient } from "../../dist/client/client.js";
import { startDelayProxyProcess } from "./lib/delay-proxy.mjs";
import { round, startBenchLite } from "./lib/lite.mjs";
import { PG_PASSWORD, startPostgres } from "./lib/postgres.mjs";
import { pump } from "./lib/session-pump.mjs";

const SECS = Number(process.env.BENCH_PG_SECS ?? 4);
const CLIENTS = 32;
/** Rounds of the one-session figures (BENCH_PG_SESSION_ROUNDS). */
const SESSION_ROUNDS = Math.max(1, Number(process.env.BENCH_PG_SESSION_ROUNDS ?? 3));
const FAR_MS = 2;

let dbCount = 0;

/** A fresh database; its node URL direct ("near") or through the proxy ("far"). */
async function database(ctx, far) {
  const name = `scale${++dbCount}`;
  await ctx.admin.query(`CREATE DATABASE ${name}`);
  const port = far ? ctx.proxy.port : ctx.server.port;
  return `postgres://postgres@127.0.0.1:${port}/${name}`;
}

async function nodes(url, n) {
  const out = [];
  for (let i = 0; i < n; i++)
    out.push(await startBenchLite(url ? ["--storage", url] : [], url ? { PGPASSWORD: PG_PASSWORD } : {}));
  return out;
}

async function stopAll(list) {
  for (const n of list) await n.stop();
}

/** `CLIENTS` loops, each sending `make(i)` requests on its own keep-alive connection for SECS. */
async function load(targets, make) {
  const agents = targets.map(() => new Agent({ connections: CLIENTS, pipelining: 1 }));
  let ok = 0;
  const refused = {};
  const until = performance.now() + SECS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const k = i % targets.length;
      const { url, token, path, method, body, headers } = make(targets[k], i);
      while (performance.now() < until) {
        const res = await request(`${url}${path}`, {
          method,
          body,
          headers: { authorization: `Bearer ${token}`, ...headers },
          dispatcher: agents[k],
        }).catch((e) => ({ statusCode: e.code ?? "error", body: null }));
        await res.body?.dump();
        if (res.statusCode === 200) ok++;
        else refused[res.statusCode] = (refused[res.statusCode] ?? 0) + 1;
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  await Promise.all(agents.map((a) => a.close()));
  const nRefused = Object.values(refused).reduce((a, b) => a + b, 0);
  return {
    per_s: Math.round(ok / secs),
    refused: nRefused,
    refused_fraction: round(nRefused / Math.max(1, ok + nRefused)),
    refused_by_status: refused,
  };
}

async function setup(node, basin, records) {
  const c = new SvcClient({ accountEndpoint: node.url, basinEndpoint: node.url, accessToken: node.token });
  try {
    await c.basins.create(basin);
    await c.basin(basin).streams.create("s");
    // in batches of 10 records, as appended by many small writers
    const body = new Uint8Array(100).fill(0x61);
    for (let i = 0; i < records; i += 10)
      await c
        .basin(basin)
        .stream("s")
        .append({ records: Array.from({ length: 10 }, () => ({ headers: [], body })) });
  } finally {
    await c.close();
  }
}

/** check-tail and 10-record reads on one node (lmdb when url is undefined). */
async function readFigures(url) {
  const [node] = await nodes(url, 1);
  try {
    await setup(node, "bench-reads", 1000);
    const base = { url: node.url, token: node.token, method: "GET", headers: { "svc-basin": "bench-reads" } };
    const checkTail = await load([node], () => ({ ...base, path: "/v1/streams/s/records/tail" }));
    const reads = await load([node], (_, i) => ({
      ...base,
      path: `/v1/streams/s/records?seq_num=${(i * 31) % 990}&count=10`,
    }));
    return { check_tail: checkTail, read_10: reads };
  } finally {
    await stopAll([node]);
  }
}

/** 1-record unconditional appends to one stream through `n` nodes on one database. */
async function appendFigures(url, n) {
  const list = await nodes(url, n);
  try {
    await setup(list[0], "bench-appends", 0);
    const body = JSON.stringify({ records: [{ body: "x".repeat(100) }] });
    return await load(list, (node) => ({
      url: node.url,
      token: node.token,
      method: "POST",
      path: "/v1/streams/s/records",
      body,
      headers: { "svc-basin": "bench-appends", "content-type": "application/json" },
    }));
  } finally {
    await stopAll(list);
  }
}

const clients = new Set();
function clientFor(node) {
  const c = new SvcClient({ accountEndpoint: node.url, basinEndpoint: node.url, accessToken: node.token });
  clients.add(c);
  return c;
}
async function closeClients() {
  await Promise.all([...clients].map((c) => c.close().catch(() => {})));
  clients.clear();
}

/** Records/s of `streams` sessions spread over `n` nodes (lmdb when url is undefined: one node). */
async function sessionFigures(url, n, streams, depth) {
  const list = await nodes(url, n);
  try {
    const basin = "bench-sessions";
    await clientFor(list[0]).basins.create(basin);
    const handles = [];
    for (let s = 0; s < streams; s++) {
      await clientFor(list[0]).basin(basin).streams.create(`s${s}`);
      handles.push(
        clientFor(list[s % n])
          .basin(basin)
          .stream(`s${s}`),
      );
    }
    const t0 = performance.now();
    const counts = await Promise.all(handles.map((h) => pump(h, t0 + SECS * 1000, depth)));
    return Math.round(counts.reduce((a, b) => a + b, 0) / ((performance.now() - t0) / 1000));
  } finally {
    await closeClients();
    await stopAll(list);
  }
}

/** `SELECT 1` round trips (ms, p50 and p90) to the server directly and through the proxy: the distance each far figure had. */
async function roundTrips(ctx) {
  const out = {};
  for (const [where, port] of [
    ["near", ctx.server.port],
    ["far", ctx.proxy.port],
  ]) {
    const c = new pg.Client({ host: "127.0.0.1", port, user: "postgres", password: PG_PASSWORD, database: "postgres" });
    await c.connect();
    const ms = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await c.query("SELECT 1");
      ms.push(performance.now() - t);
    }
    await c.end();
    ms.sort((a, b) => a - b);
    out[where] = { p50: round(ms[100], 2), p90: round(ms[180], 2) };
  }
  return out;
}

async function main() {
  const server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  const proxy = await startDelayProxyProcess(server.port, FAR_MS);
  const ctx = { server, admin, proxy };
  try {
    const out = {
      bench: "pg-scale",
      seconds_per_figure: SECS,
      clients: CLIENTS,
      far_ms_each_way: FAR_MS,
      round_trip_ms: await roundTrips(ctx),
    };
    const only = process.env.BENCH_PG_PARTS?.split(",");
    const want = (p) => !only || only.includes(p);
    if (want("reads")) {
      out.lmdb = await readFigures(undefined);
      out.near = await readFigures(await database(ctx, false));
      out.far = await readFigures(await database(ctx, true));
    }
    if (want("appends")) {
      for (const [where, far] of [
        ["near", false],
        ["far", true],
      ]) {
        out[`appends_one_stream_${where}`] = {
          nodes_2: await appendFigures(await database(ctx, far), 2),
          nodes_3: await appendFigures(await database(ctx, far), 3),
        };
      }
    }
    if (want("session")) {
      // One pair of figures is noisy on a small shared machine (0.36-0.47 within minutes), and a
      // figure pays for what the figures before it wrote (the page cache): rounds of lmdb, near and
      // far in turn, each on a fresh server; the round with the median near/lmdb ratio is reported.
      const rounds = [];
      for (let r = 0; r < SESSION_ROUNDS; r++) {
        const lmdb = await sessionFigures(undefined, 1, 1, 8);
        const near = await sessionFigures(await database(ctx, false), 1, 1, 8);
        const far = await sessionFigures(await database(ctx, true), 1, 1, 8);
        rounds.push({ lmdb, near, far, near_vs_lmdb: round(near / lmdb), far_vs_lmdb: round(far / lmdb) });
      }
      const median = [...rounds].sort((x, y) => x.near_vs_lmdb - y.near_vs_lmdb)[Math.floor(rounds.length / 2)];
      out.session_1kib_records_per_s = { ...median, rounds };
    }
    if (want("streams30")) {
      const agg = {};
      for (const [where, far] of [
        ["near", false],
        ["far", true],
      ]) {
        for (const n of [1, 2, 3])
          agg[`${where}_nodes_${n}`] = await sessionFigures(await database(ctx, far), n, 30, 4);
      }
      out.streams_30_records_per_s = agg;
    }
    if (out.lmdb) {
      out.ratios = {
        check_tail_near_vs_lmdb: round(out.near.check_tail.per_s / out.lmdb.check_tail.per_s),
        read_10_near_vs_lmdb: round(out.near.read_10.per_s / out.lmdb.read_10.per_s),
      };
    }
    console.log(JSON.stringify(out));
  } finally {
    await proxy.close();
    await admin.end();
    await server.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
