#!/usr/bin/env node
/**
 * Provisioning at the storage's pace: stream creations, listings, reconfigurations and
 * deletions for one basin through raw HTTP (`POST /v1/streams`, ...), on a fresh lite node on
 * lmdb and on PostgreSQL, against the baseline of the same run: the statements a creation
 * needs sent straight to the same PostgreSQL (a pool of as many connections as a node writes
 * through, 10), with lite's own schema.
 *
 * Each figure has its own fresh server and database and the same volume (BENCH_PROV_N streams,
 * default 2,000). Concurrency: 1 and 64 (BENCH_PROV_CONCURRENCY, comma-separated).
 *
 *   node test/bench/provisioning.mjs      (build first)
 */
import pg from "pg";
import { Agent, request } from "undici";
import { round, startBenchLite } from "./lib/lite.mjs";
import { PG_PASSWORD, startPostgres } from "./lib/postgres.mjs";

const N = Number(process.env.BENCH_PROV_N ?? 2000);
const LEVELS = (process.env.BENCH_PROV_CONCURRENCY ?? "1,64").split(",").map(Number);
const POOL = 10;
const BASIN = "bench-provisioning";

let dbCount = 0;
async function database(ctx) {
  const name = `prov${++dbCount}`;
  await ctx.admin.query(`CREATE DATABASE ${name}`);
  return `postgres://postgres@127.0.0.1:${ctx.server.port}/${name}`;
}

/** Runs `op(i)` for i in 0..n-1 with `c` in flight; per second, and the non-2xx count. */
async function drive(n, c, op) {
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      for (let i = next++; i < n; i = next++) if (!(await op(i))) failed++;
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { per_s: Math.round(n / secs), failed };
}

function http(node, c) {
  const agent = new Agent({ connections: c, pipelining: 1 });
  const call = async (method, path, json) => {
    const res = await request(`${node.url}${path}`, {
      method,
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${node.token}`,
        "svc-basin": BASIN,
        ...(json ? { "content-type": "application/json" } : {}),
      },
      body: json ? JSON.stringify(json) : undefined,
    }).catch(() => ({ statusCode: 0, body: null }));
    await res.body?.dump();
    return res.statusCode >= 200 && res.statusCode < 300;
  };
  return { call, close: () => agent.close() };
}

/** Every operation's rate through one fresh node at concurrency `c`. */
async function liteFigures(args, env, c) {
  const node = await startBenchLite(args, env);
  const h = http(node, c);
  try {
    if (!(await h.call("POST", "/v1/basins", { basin: BASIN }))) throw new Error("basin create failed");
    const name = (i) => `s-${String(i).padStart(6, "0")}`;
    const create = await drive(N, c, (i) => h.call("POST", "/v1/streams", { stream: name(i) }));
    const list = await drive(Math.min(N, 400), c, (i) =>
      h.call("GET", `/v1/streams?limit=100&start_after=${name((i * 97) % N)}`),
    );
    const reconfigure = await drive(N, c, (i) =>
      h.call("PATCH", `/v1/streams/${name(i)}`, { retention_policy: { age: 86400 + i } }),
    );
    const remove = await drive(N, c, (i) => h.call("DELETE", `/v1/streams/${name(i)}`));
    return { create, list, reconfigure, delete: remove };
  } finally {
    await h.close();
    await node.stop();
  }
}

/**
 * The baseline: what a creation asks of the database (as lite asked it before creations became one statement: the basin
 * and stream looked up, an id, a transaction with the basin locked, the stream and its tail
 * inserted, a notification), sent straight through a pool of POOL connections.
 */
async function directFigures(ctx, c) {
  const url = await database(ctx);
  // Let a node migrate the schema and make the basin, then stop it: the tables are lite's.
  const node = await startBenchLite(["--storage", url], { PGPASSWORD: PG_PASSWORD });
  const h = http(node, 1);
  await h.call("POST", "/v1/basins", { basin: BASIN });
  await h.close();
  await node.stop();
  const pool = new pg.Pool({ connectionString: url.replace("postgres@", `postgres:${PG_PASSWORD}@`), max: POOL });
  try {
    const create = await drive(N, c, async (i) => {
      const name = `d-${i}`;
      await pool.query("SELECT meta FROM svc_basins WHERE name = $1", [BASIN]);
      await pool.query("SELECT meta FROM svc_streams WHERE basin = $1 AND name = $2", [BASIN, name]);
      const id = (await pool.query("SELECT pg_catalog.nextval('svc_stream_ids') AS id")).rows[0].id;
      const tx = await pool.connect();
      try {
        await tx.query("BEGIN");
        await tx.query("SELECT 1 FROM svc_basins WHERE name = $1 AND NOT deleted FOR SHARE", [BASIN]);
        await tx.query(
          "INSERT INTO svc_streams (basin, name, id, deleted, rev, meta) VALUES ($1, $2, $3, false, 0, $4) ON CONFLICT (basin, name) DO NOTHING",
          [BASIN, name, id, JSON.stringify({ basin: BASIN, name, id })],
        );
        await tx.query(
          "INSERT INTO svc_tails (id, next_seq, last_ts, fencing_token, trim_point, last_arrival) VALUES ($1, 0, 0, '', 0, 0)",
          [id],
        );
        await tx.query("SELECT pg_catalog.pg_notify('svc_bench', $1)", [String(id)]);
        await tx.query("COMMIT");
      } finally {
        tx.release();
      }
      return true;
    });
    return { create };
  } finally {
    await pool.end();
  }
}

const server = await startPostgres();
const admin = new pg.Client({ connectionString: server.adminUrl });
await admin.connect();
const ctx = { server, admin };
const out = { streams: N, pool: POOL };
try {
  for (const c of LEVELS) {
    const direct = await directFigures(ctx, c);
    const lmdb = await liteFigures([], {}, c);
    const onPg = await liteFigures(["--storage", await database(ctx)], { PGPASSWORD: PG_PASSWORD }, c);
    out[`c${c}`] = {
      direct_sql: direct,
      lmdb,
      postgres: onPg,
      postgres_create_vs_direct: round(onPg.create.per_s / direct.create.per_s),
      lmdb_create_vs_direct: round(lmdb.create.per_s / direct.create.per_s),
    };
  }
} finally {
  await admin.end();
  await server.stop();
}
console.log(JSON.stringify(out));
