/**
 * Baseline for the lite append bench: the raw lmdb durable write rate on the machine it runs on, in
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

let seq = 0;
/** One durable write as lite makes it per batch: the batch value, the stream state, then the flush. */
async function durablePut(value, records) {
  batches.put(key(seq), value);
  await states.put(1, { nextSeq: seq + records, lastTimestamp: Date.now() });
  await env.flushed;
  seq += records;
}

/** Latencies (ms, sorted) of durable puts of `value` for SECONDS, one every `everyMs` (0: back to back). */
async function putLatencies(value, records, everyMs) {
  const lat = [];
  const t = performance.now();
  for (let i = 0; performance.now() - t < SECONDS * 1000; i++) {
    const wait = t + i * everyMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const s = performance.now();
    await durablePut(value, records);
    lat.push(performance.now() - s);
  }
  return lat.sort((a, b) => a - b);
}

// ~ the stored size of 1000 × 1 KiB records (1024-byte body + 20 bytes of framing each).
const batchValue = Buffer.alloc(21 + 1000 * (1024 + 20), 0x61);
const t0 = performance.now();
while (performance.now() - t0 < SECONDS * 1000) await durablePut(batchValue, 1000);
const batchRate = seq / ((performance.now() - t0) / 1000);

const lat = await putLatencies(Buffer.alloc(21 + 1024 + 20, 0x62), 1, 0);
// Context for the ack latency at 10 MiB/s (not its baseline): the same durable put of what
// lite stores for one 64-record input (~66 KB), paced like that bench (one every 6.25 ms),
// so lmdb's writer thread sleeps between commits as it does under that load.
const pacedLat = await putLatencies(Buffer.alloc(21 + 64 * (1024 + 20), 0x63), 64, 6.25);
await env.close();
rmSync(dir, { recursive: true, force: true });
const pct = (p, l = lat) => Number(l[Math.min(l.length - 1, Math.floor(l.length * p))].toFixed(3));
console.log(
  JSON.stringify({
    lmdb_durable_batch1000_records_per_s: Math.round(batchRate),
    lmdb_durable_single_put_p50_ms: pct(0.5),
    lmdb_durable_single_put_p99_ms: pct(0.99),
    lmdb_durable_64_record_put_paced_10mib_p50_ms: pct(0.5, pacedLat),
    lmdb_durable_64_record_put_paced_10mib_p99_ms: pct(0.99, pacedLat),
  }),
);
