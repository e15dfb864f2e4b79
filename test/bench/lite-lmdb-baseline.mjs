/**
 * Baseline for the lite append bench: the raw lmdb durable write rate on this machine, in
 * this run. It does what lite's storage does per appended batch, minus HTTP and codecs:
 * one put of a ~1 MB value (1000 × 1 KiB records) plus a small state put, then
 * `await env.flushed` (the ack condition). Also a 1-record durable put latency, and the
 * latency of a 64-record put paced at 10 MiB/s (context for the session ack latency).
 *
 * Prints one JSON object on stdout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open } from "lmdb";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const dir = mkdtempSync(join(tmpdir(), "svc-bench-lmdb-"));
const env = open({ path: join(dir, "data.mdb"), maxDbs: 4 });
const batches = env.openDB({ name: "batches", encoding: "binary", keyEncoding: "binary" });
const states = env.openDB({ name: "states", encoding: "json", keyEncoding: "uint32" });

function key(seq) {
  const k = Buffer.allocUnsafe(12);
  k.writeUInt32BE(1, 0);
  k.writeUInt32BE(Math.floor(seq / 2 ** 32), 4);
  k.writeUInt32BE(seq >>> 0, 8);
  return k;
}

// ~ the stored size of 1000 × 1 KiB records (1024-byte body + 20 bytes of framing each).
const batchValue = Buffer.alloc(21 + 1000 * (1024 + 20), 0x61);
let seq = 0;
const t0 = performance.now();
while (performance.now() - t0 < SECONDS * 1000) {
  batches.put(key(seq), batchValue);
  await states.put(1, { nextSeq: seq + 1000, lastTimestamp: Date.now() });
  await env.flushed;
  seq += 1000;
}
const batchRate = seq / ((performance.now() - t0) / 1000);

const small = Buffer.alloc(21 + 1024 + 20, 0x62);
const lat = [];
const t1 = performance.now();
while (performance.now() - t1 < SECONDS * 1000) {
  const s = performance.now();
  batches.put(key(seq), small);
  await states.put(1, { nextSeq: seq + 1, lastTimestamp: Date.now() });
  await env.flushed;
  lat.push(performance.now() - s);
  seq += 1;
}
lat.sort((a, b) => a - b);

// Context for the ack latency at 10 MiB/s (not its baseline): the same durable put of what
// lite stores for one 64-record input (~66 KB), paced like that bench (one every 6.25 ms),
// so lmdb's writer thread sleeps between commits as it does under that load.
const paced = Buffer.alloc(21 + 64 * (1024 + 20), 0x63);
const pacedLat = [];
const t2 = performance.now();
for (let i = 0; performance.now() - t2 < SECONDS * 1000; i++) {
  const wait = t2 + i * 6.25 - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const s = performance.now();
  batches.put(key(seq), paced);
  await states.put(1, { nextSeq: seq + 64, lastTimestamp: Date.now() });
  await env.flushed;
  pacedLat.push(performance.now() - s);
  seq += 64;
}
pacedLat.sort((a, b) => a - b);
await env.close();
rmSync(dir, { recursive: true, force: true });
const pct = (p) => Number(lat[Math.min(lat.length - 1, Math.floor(lat.length * p))].toFixed(3));
console.log(JSON.stringify({
  lmdb_durable_batch1000_records_per_s: Math.round(batchRate),
  lmdb_durable_single_put_p50_ms: pct(0.5),
  lmdb_durable_single_put_p99_ms: pct(0.99),
  lmdb_durable_64_record_put_paced_10mib_p50_ms: Number(pacedLat[Math.floor(pacedLat.length / 2)].toFixed(3)),
  lmdb_durable_64_record_put_paced_10mib_p99_ms: Number(pacedLat[Math.min(pacedLat.length - 1, Math.floor(pacedLat.length * 0.99))].toFixed(3)),
}));
