#!/usr/bin/env node
/**
 * What metrics cost: unary append (protobuf, 1000 × 1 KiB, 4 in flight) and unary read (protobuf,
 * 1000 records a request, 4 in flight) against lite with metrics on (the default) and with
 * --no-metrics, in the same run. Phases alternate ABBA (on/off, off/on, ...) and each side's mean
 * is kept, so a trend over the run and a noisy neighbour hurt both alike. Ratios are on / off; the
 * target is ≥ 0.97 (docs/design/performance.md, "The scenarios `npm run bench` holds to targets").
 *
 *   node test/bench/lite-metrics.mjs      (BENCH_SECONDS=5, BENCH_METRICS_ROUNDS=4; build first)
 *
 * Phases of 2 s gave append ratios from 0.68 to 1.07 in one afternoon on a shared 2-core machine; 6
 * s phases gave
 * 1.04: shorter phases measure the neighbours more than the metrics.
 */
import { Pool } from "undici";
import { encodeAppendInput } from "../../dist/wire/proto.js";
import { round, startBenchLite } from "./lib/lite.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_METRICS_ROUNDS ?? 4);
const BASIN = "bench-metrics-01";
const body = new Uint8Array(1024).fill(0x61);
const proto = Buffer.from(encodeAppendInput({ records: Array.from({ length: 1000 }, () => ({ headers: [], body })) }));

async function prepare(lite) {
  const headers = { authorization: `Bearer ${lite.token}`, "content-type": "application/json" };
  await fetch(`${lite.url}/v1/basins`, {
    method: "POST",
    headers,
    body: JSON.stringify({ basin: BASIN, config: { create_stream_on_append: true } }),
  });
}

/** Runs `op` on 4 connections for SECONDS; returns records per second. */
async function phase(lite, op) {
  const pool = new Pool(lite.url, { connections: 4 });
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async (_, worker) => {
      while (performance.now() < until) {
        // Not `done += await op()`: that reads `done` before the await, and the four workers'
        // sums overwrite each other (the figures were 2-5x low, and swung with the interleaving).
        const n = await op(pool, worker);
        done += n;
      }
    }),
  );
  await pool.close();
  return done / ((performance.now() - t0) / 1000);
}

const common = (lite) => ({
  authorization: `Bearer ${lite.token}`,
  "svc-basin": BASIN,
  accept: "application/protobuf",
});
let streamNo = 0;

function appendPhase(lite) {
  const path = `/v1/streams/a${++streamNo}/records`;
  const headers = { ...common(lite), "content-type": "application/protobuf" };
  return phase(lite, async (pool) => {
    const r = await pool.request({ method: "POST", path, headers, body: proto });
    await r.body.arrayBuffer();
    if (r.statusCode !== 200) throw new Error(`append → ${r.statusCode}`);
    return 1000;
  });
}

/** Reads stream `r` (filled once with 20,000 records) from 4 readers at rotating offsets. */
function readPhase(lite) {
  const headers = common(lite);
  let next = 0;
  return phase(lite, async (pool) => {
    const seq = (next++ % 20) * 1000;
    const r = await pool.request({ method: "GET", path: `/v1/streams/r/records?seq_num=${seq}&count=1000`, headers });
    const buf = await r.body.arrayBuffer();
    if (r.statusCode !== 200 || buf.byteLength < 1000 * 1024) throw new Error(`read → ${r.statusCode}`);
    return 1000;
  });
}

async function fillReadStream(lite) {
  const headers = { ...common(lite), "content-type": "application/protobuf" };
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${lite.url}/v1/streams/r/records`, { method: "POST", headers, body: proto });
    if (r.status !== 200) throw new Error(`fill → ${r.status}`);
  }
}

const sides = { on: await startBenchLite(["--no-auth"]), off: await startBenchLite(["--no-auth", "--no-metrics"]) };
try {
  for (const lite of Object.values(sides)) {
    await prepare(lite);
    await fillReadStream(lite);
  }
  // ABBA: on/off, off/on, on/off, off/on, and the mean of each side. Append rates fall as a
  // server's data grows (2.4 GB in a run here: from ~200k to ~150k records/s), so the best of
  // each side favoured whichever went first: two servers both with metrics on gave 1.38x.
  const rates = { append_on: [], append_off: [], read_on: [], read_off: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ["on", "off"] : ["off", "on"];
    for (const side of order) rates[`append_${side}`].push(await appendPhase(sides[side]));
    for (const side of order) rates[`read_${side}`].push(await readPhase(sides[side]));
  }
  const mean = (k) => rates[k].reduce((a, b) => a + b, 0) / rates[k].length;
  const side = (op) => ({
    metrics_on: Math.round(mean(`${op}_on`)),
    metrics_off: Math.round(mean(`${op}_off`)),
    ratio: round(mean(`${op}_on`) / mean(`${op}_off`)),
    phases_on: rates[`${op}_on`].map(Math.round),
    phases_off: rates[`${op}_off`].map(Math.round),
  });
  console.log(
    JSON.stringify({
      unary_append_protobuf_c4_records_per_s: side("append"),
      unary_read_protobuf_c4_records_per_s: side("read"),
    }),
  );
} finally {
  await sides.on.stop();
  await sides.off.stop();
}
