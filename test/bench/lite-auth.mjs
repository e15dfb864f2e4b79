#!/usr/bin/env node
/**
 * What auth costs: unary append (protobuf, 1000 × 1 KiB, 4 in flight) and one
 * append session (1 KiB records), each against lite with auth on (an issued, scoped token:
 * lookup, hash compare and scope check on every request and every session input) and with
 * --no-auth, in the same run. Phases alternate on/off/on/off and the best of each side is
 * kept, so a noisy neighbour hurts both sides alike. Ratios are auth-on / no-auth.
 *
 *   node test/bench/lite-auth.mjs      (BENCH_SECONDS=2, BENCH_AUTH_SESSION_MIB=64; build first)
 */
import { Pool } from "undici";
import { SvcClient } from "../../dist/client/client.js";
import { encodeAppendInput } from "../../dist/wire/proto.js";
import { round, startBenchLite } from "./lib/lite.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SESSION_MIB = Number(process.env.BENCH_AUTH_SESSION_MIB ?? 64);
const ROUNDS = Number(process.env.BENCH_AUTH_ROUNDS ?? 4);
const MIB = 1024 * 1024;
const BASIN = "bench-auth-01";
const body = new Uint8Array(1024).fill(0x61);
const input = { records: Array.from({ length: 1000 }, () => ({ headers: [], body })) };
const proto = Buffer.from(encodeAppendInput(input));

async function prepare(lite, auth) {
  const root = { authorization: `Bearer ${lite.token}`, "content-type": "application/json" };
  await fetch(`${lite.url}/v1/basins`, {
    method: "POST",
    headers: root,
    body: JSON.stringify({ basin: BASIN, config: { create_stream_on_append: true } }),
  });
  if (!auth) return lite.token;
  const r = await fetch(`${lite.url}/v1/access-tokens`, {
    method: "POST",
    headers: root,
    body: JSON.stringify({
      id: "bench/writer",
      scope: { basins: { exact: BASIN }, streams: { prefix: "" }, op_groups: { stream: { read: true, write: true } } },
    }),
  });
  return (await r.json()).access_token;
}

let streamNo = 0;
async function unary(lite, token) {
  const pool = new Pool(lite.url, { connections: 4 });
  const path = `/v1/streams/u${++streamNo}/records`;
  const headers = {
    authorization: `Bearer ${token}`,
    "svc-basin": BASIN,
    "content-type": "application/protobuf",
    accept: "application/protobuf",
  };
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < until) {
        const r = await pool.request({ method: "POST", path, headers, body: proto });
        await r.body.arrayBuffer();
        if (r.statusCode !== 200) throw new Error(`append → ${r.statusCode}`);
        done += 1000;
      }
    }),
  );
  await pool.close();
  return done / ((performance.now() - t0) / 1000);
}

async function session(lite, token) {
  const client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: token });
  const stream = client.basin(BASIN).stream(`s${++streamNo}`);
  const count = Math.ceil((SESSION_MIB * MIB) / (1000 * 1024));
  const s = await stream.appender({ maxInflightBytes: 8 * MIB });
  const t0 = performance.now();
  const acks = [];
  for (let i = 0; i < count; i++) {
    acks.push((await s.submit(input)).ack()); // submit waits while 8 MiB are unacknowledged
  }
  await Promise.all(acks);
  await s.close();
  const rate = (count * 1000) / ((performance.now() - t0) / 1000);
  await client.close();
  return rate;
}

const off = await startBenchLite(["--no-auth"]);
const on = await startBenchLite();
try {
  const tokens = { on: await prepare(on, true), off: await prepare(off, false) };
  const best = { unary_on: 0, unary_off: 0, session_on: 0, session_off: 0 };
  // Rounds alternate which side goes first: the phase after another pays for its flushes.
  for (let r = 0; r < ROUNDS; r++) {
    const sides = r % 2 === 0 ? ["on", "off"] : ["off", "on"];
    for (const side of sides)
      best[`unary_${side}`] = Math.max(best[`unary_${side}`], await unary(side === "on" ? on : off, tokens[side]));
    for (const side of sides)
      best[`session_${side}`] = Math.max(
        best[`session_${side}`],
        await session(side === "on" ? on : off, tokens[side]),
      );
  }
  console.log(
    JSON.stringify({
      unary_protobuf_c4_records_per_s: {
        auth_on: Math.round(best.unary_on),
        no_auth: Math.round(best.unary_off),
        ratio: round(best.unary_on / best.unary_off),
      },
      append_session_records_per_s: {
        auth_on: Math.round(best.session_on),
        no_auth: Math.round(best.session_off),
        ratio: round(best.session_on / best.session_off),
      },
    }),
  );
} finally {
  await on.stop();
  await off.stop();
}
