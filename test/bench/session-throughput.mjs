#!/usr/bin/env node
/**
 * Session figures, against raw HTTP/2 loopback throughput measured in the same run:
 * - append-session throughput, 1 KiB and 64 KiB records, batches up to 1000 records / 1 MiB,
 *   durable lite (every ack after fsync), 8 MiB in flight, after a warm-up session of a
 *   quarter of the size (reported as warmup_session_1kib);
 * - read-session catch-up throughput of what was written (from seq 0 to the tail), after two
 *   reads of the warm-up stream (the first one's rate reported as warmup_read_1kib);
 * - ack latency p50/p99 at a fixed 10 MiB/s offered load (64 KiB batches every 6.25 ms).
 * Throughput figures (and the raw HTTP/2 ones) are the median of BENCH_SESSION_ROUNDS (3) runs.
 * The client is the built svc client in this process; lite is a child process.
 *
 *   node test/bench/session-throughput.mjs      (BENCH_SESSION_MIB=128 by default; build first)
 */
import { SvcClient } from "../../dist/client/client.js";
import { percentile, round, startBenchLite } from "./lib/lite.mjs";
import { rawHttp2 } from "./lib/raw-http2.mjs";

const MIB = 1024 * 1024;
const TOTAL_MIB = Number(process.env.BENCH_SESSION_MIB ?? 128);
const ROUNDS = Number(process.env.BENCH_SESSION_ROUNDS ?? 3);

/** The middle element of `xs` ordered by `key` (the upper middle for an even count). */
const medianBy = (xs, key) => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)];

function batches(recordBytes, totalBytes) {
  const body = new Uint8Array(recordBytes).fill(0x61);
  const perBatch = Math.max(1, Math.min(1000, Math.floor((MIB - 64) / (recordBytes + 8))));
  const count = Math.ceil(totalBytes / (recordBytes * perBatch));
  const input = { records: Array.from({ length: perBatch }, () => ({ headers: [], body })) };
  return { input, count, perBatch };
}

async function appendThroughput(stream, recordBytes, totalMiB = TOTAL_MIB) {
  const { input, count, perBatch } = batches(recordBytes, totalMiB * MIB);
  const session = await stream.appender({ maxInflightBytes: 8 * MIB });
  const t0 = performance.now();
  const acks = [];
  for (let i = 0; i < count; i++) {
    acks.push((await session.submit(input)).ack()); // submit waits while 8 MiB are unacknowledged
  }
  await Promise.all(acks);
  await session.close();
  const secs = (performance.now() - t0) / 1000;
  const bytes = count * perBatch * recordBytes;
  return { mibs: bytes / MIB / secs, records_per_s: (count * perBatch) / secs, records: count * perBatch };
}

async function readThroughput(stream, expected) {
  const t0 = performance.now();
  let n = 0;
  let bytes = 0;
  for await (const ev of stream.read({ seqNum: 0 }, { wait: 0 })) {
    if (ev.type !== "batch") continue;
    n += ev.records.length;
    for (const r of ev.records) bytes += r.body.length;
  }
  const secs = (performance.now() - t0) / 1000;
  if (n !== expected) throw new Error(`read ${n} records, expected ${expected}`);
  return { mibs: bytes / MIB / secs, records_per_s: n / secs };
}

async function ackLatency(stream) {
  const rate = 10 * MIB;
  const batchBytes = 64 * 1024;
  const input = {
    records: Array.from({ length: 64 }, () => ({ headers: [], body: new Uint8Array(1024 - 8).fill(0x62) })),
  };
  const intervalMs = (batchBytes / rate) * 1000;
  const session = await stream.appender();
  const latencies = [];
  const start = performance.now();
  const pending = [];
  for (let i = 0; performance.now() - start < 4000; i++) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t = performance.now();
    pending.push(session.append(input).then(() => latencies.push(performance.now() - t)));
  }
  await Promise.all(pending);
  await session.close();
  latencies.sort((a, b) => a - b);
  return {
    p50_ms: round(percentile(latencies, 50), 2),
    p99_ms: round(percentile(latencies, 99), 2),
    samples: latencies.length,
  };
}

async function main() {
  const lite = await startBenchLite();
  const client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  try {
    const basin = `bench-sessions-${process.pid}`;
    await client.basins.create(basin, { config: { default_stream_config: { retention_policy: { infinite: {} } } } });
    const b = client.basin(basin);
    const results = {};
    // A fresh server first compiles its hot paths and grows its data file: one warm-up session
    // (a quarter of the size) before the measured ones, as the unary figures they are compared
    // with are taken after their own first phase. Its rate is reported too.
    await b.streams.create("warmup");
    const warmup = await appendThroughput(b.stream("warmup"), 1024, Math.max(8, TOTAL_MIB / 4));
    // Each measured run takes a fraction of a second on a 2-core machine: ROUNDS of each (sizes
    // alternating), and the median run. The raw HTTP/2 baseline is taken the same way.
    for (let i = 0; i < ROUNDS; i++) {
      for (const size of [1024, 64 * 1024]) {
        const name = `append-${size}-${i}`;
        await b.streams.create(name);
        (results[size] ??= []).push({ name, ...(await appendThroughput(b.stream(name), size)) });
      }
    }
    const append1k = medianBy(results[1024], (r) => r.mibs);
    const append64k = medianBy(results[64 * 1024], (r) => r.mibs);
    // The read path warms up the same way, on the warm-up stream: a fresh process reads its
    // first tens of MiB at half speed or less (lite and this client both still compiling).
    const warmRead = await readThroughput(b.stream("warmup"), warmup.records);
    await readThroughput(b.stream("warmup"), warmup.records);
    const reads = [];
    for (const r of results[1024]) reads.push(await readThroughput(b.stream(r.name), r.records));
    const read = medianBy(reads, (r) => r.mibs);
    await b.streams.create("latency");
    const latency = await ackLatency(b.stream("latency"));
    const raws = [];
    for (let i = 0; i < ROUNDS; i++) raws.push(await rawHttp2({ totalBytes: TOTAL_MIB * MIB, chunkBytes: 64 * 1024 }));
    const raw = {
      uploadMiBs: medianBy(raws, (r) => r.uploadMiBs).uploadMiBs,
      downloadMiBs: medianBy(raws, (r) => r.downloadMiBs).downloadMiBs,
    };
    console.log(
      JSON.stringify({
        bench: "session-throughput",
        total_mib: TOTAL_MIB,
        warmup_session_1kib: { mib_s: round(warmup.mibs, 1), records_per_s: Math.round(warmup.records_per_s) },
        warmup_read_1kib: { mib_s: round(warmRead.mibs, 1), records_per_s: Math.round(warmRead.records_per_s) },
        append_session_1kib: {
          mib_s: round(append1k.mibs, 1),
          records_per_s: Math.round(append1k.records_per_s),
          vs_raw_h2_upload: round(append1k.mibs / raw.uploadMiBs),
          rounds_mib_s: results[1024].map((r) => round(r.mibs, 1)),
        },
        append_session_64kib: {
          mib_s: round(append64k.mibs, 1),
          records_per_s: Math.round(append64k.records_per_s),
          vs_raw_h2_upload: round(append64k.mibs / raw.uploadMiBs),
          rounds_mib_s: results[64 * 1024].map((r) => round(r.mibs, 1)),
        },
        read_session_catchup_1kib: {
          mib_s: round(read.mibs, 1),
          records_per_s: Math.round(read.records_per_s),
          vs_raw_h2_download: round(read.mibs / raw.downloadMiBs),
          rounds_mib_s: reads.map((r) => round(r.mibs, 1)),
        },
        ack_latency_at_10_mib_s: latency,
        raw_h2: {
          upload_mib_s: round(raw.uploadMiBs, 1),
          download_mib_s: round(raw.downloadMiBs, 1),
          rounds: raws.map((r) => [round(r.uploadMiBs, 1), round(r.downloadMiBs, 1)]),
        },
      }),
    );
  } finally {
    await client.close?.();
    await lite.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
