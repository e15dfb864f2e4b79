#!/usr/bin/env node
/**
 * The scenarios of docs/design/performance.md ("The scenarios `npm run bench` holds to targets")
 * that the other scripts do not measure, each with a baseline measured in this run:
 *   b5  group commit: 16 sessions × 4 in flight of 1-record inputs vs one session, 1 in flight;
 *   b7  zstd sessions (JSON-log bodies, random bodies) vs the same session uncompressed;
 *   b8  the same raw session client over HTTP/1.1 (chunked) vs HTTP/2 (h2c), medians of 3 rounds;
 *   e2e_latency_10mib  `svc bench --target-mibps 10` ack and end-to-end latency (a child process);
 *   streams_100  100 streams written and followed at once vs one stream at the same rate;
 *   rss_session  lite's peak RSS during a 1 GiB append session on a server of its own (started for
 *             it), vs right after start-up: VmHWM, and sampled every 50 ms split into anonymous
 *             memory (heap, buffers: what lite holds) and file-backed pages (lmdb's memory map
 *             of data.mdb: page cache, shared and reclaimable, growing with the data touched).
 * BENCH_QUICK=1 shortens every phase. Prints one JSON object on stdout.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import { SvcClient } from "../../dist/client/client.js";
import { encodeFrame, FrameParser } from "../../dist/wire/framing.js";
import { encodeAppendInput } from "../../dist/wire/proto.js";
import { BIN, percentile, round, startBenchLite } from "./lib/lite.mjs";

const QUICK = process.env.BENCH_QUICK === "1";
const MIB = 1024 * 1024;
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 1.5 : 4));
const SESSION_MIB = QUICK ? 32 : 128;
const RSS_MIB = Number(process.env.BENCH_RSS_MIB ?? (QUICK ? 256 : 1024));

const ratio = (x, base) => round(x / base, 3);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function jsonLogBody(i) {
  const line = JSON.stringify({
    ts: new Date(1_700_000_000_000 + i).toISOString(),
    level: i % 7 ? "info" : "warn",
    host: `web-${i % 13}`,
    trace: ((i * 2654435761) >>> 0).toString(16).padStart(8, "0"),
    path: `/api/v1/items/${i % 1000}`,
    status: 200 + (i % 5),
    ms: i % 97,
  });
  return Buffer.from(line.repeat(Math.ceil(1024 / line.length)).slice(0, 1024));
}

/** Records/s of one append session writing `mib` MiB of 1000-record inputs with `bodyOf`. */
async function sessionRate(stream, mib, bodyOf, compression = "none") {
  const inputs = Array.from({ length: 8 }, (_, k) => ({
    records: Array.from({ length: 1000 }, (_, i) => ({ headers: [], body: bodyOf(k * 1000 + i) })),
  }));
  const count = Math.ceil((mib * MIB) / (1024 * 1000));
  const session = await stream.appender({ maxInflightBytes: 8 * MIB, compression });
  const t0 = performance.now();
  const acks = [];
  for (let i = 0; i < count; i++) {
    acks.push((await session.submit(inputs[i % inputs.length])).ack()); // submit waits while 8 MiB are unacknowledged
  }
  await Promise.all(acks);
  await session.close();
  return (count * 1000) / ((performance.now() - t0) / 1000);
}

/** Records/s of `sessions` sessions each keeping `inflight` 1-record inputs in flight. */
async function smallAppends(basin, prefix, sessions, inflight) {
  const body = Buffer.alloc(1024, 0x63);
  const until = performance.now() + SECONDS * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      await basin.streams.create(`${prefix}-${s}`);
      const session = await basin.stream(`${prefix}-${s}`).appender();
      await Promise.all(
        Array.from({ length: inflight }, async () => {
          while (performance.now() < until) {
            await session.append({ records: [{ headers: [], body }] });
            n++;
          }
        }),
      );
      await session.close();
    }),
  );
  return n / SECONDS;
}

/** The same raw session client over HTTP/1.1 or HTTP/2: frames 1000 × 1 KiB inputs, counts acks. */
async function rawSession(lite, protocol, stream, mib) {
  const frame = encodeFrame(
    encodeAppendInput({
      records: Array.from({ length: 1000 }, () => ({ headers: [], body: Buffer.alloc(1024, 0x64) })),
    }),
  );
  const count = Math.ceil((mib * MIB) / (1024 * 1000));
  const url = new URL(`/v1/streams/${stream}/records`, lite.url);
  const headers = { authorization: `Bearer ${lite.token}`, "svc-basin": lite.basin, "content-type": "svc/proto" };
  const t0 = performance.now();
  let h2session;
  let req;
  const response = new Promise((resolve, reject) => {
    if (protocol === "h1") {
      req = http.request(url, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, resolve);
    } else {
      h2session = http2.connect(lite.url, { settings: { initialWindowSize: 2 * MIB } });
      h2session.on("connect", () => h2session.setLocalWindowSize(16 * MIB));
      req = h2session.request({ ":method": "POST", ":path": url.pathname, ...headers });
      req.on("response", () => resolve(req));
    }
    req.on("error", reject);
  });
  let acked = 0;
  let sent = 0;
  let wake;
  const pump = async () => {
    while (sent < count) {
      while (sent - acked >= 8) await new Promise((r) => (wake = r));
      sent++;
      if (!req.write(frame)) await new Promise((r) => req.once("drain", r));
    }
    req.end();
  };
  const pumping = pump();
  const res = await response;
  const parser = new FrameParser();
  for await (const chunk of res) {
    parser.push(chunk);
    for (let f = parser.next(); f; f = parser.next()) {
      if (f.terminal) throw new Error(`terminal frame over ${protocol}`);
      acked++;
      wake?.();
    }
    if (acked === count) break;
  }
  await pumping;
  h2session?.close();
  if (acked !== count) throw new Error(`${protocol}: ${acked} of ${count} acked`);
  return (count * 1000) / ((performance.now() - t0) / 1000);
}

/** `svc bench` in a child process at 10 MiB/s: its JSON results. */
function svcBench(lite, basin) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        "bench",
        basin,
        "--target-mibps",
        "10",
        "--record-size",
        "1KiB",
        "--duration",
        `${Math.max(2, SECONDS)}s`,
        "--no-catchup",
        "--json",
      ],
      { env: { ...process.env, ...lite.env, FORCE_COLOR: "0" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`svc bench exited ${code}: ${err}`)),
    );
  });
}

/** `n` streams each written at 20 records/s and followed by a read session: e2e latency. */
async function followedStreams(basin, prefix, n) {
  const lat = [];
  let delivered = 0;
  let written = 0;
  const stop = new AbortController();
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: n }, (_, s) => basin.streams.create(`${prefix}-${s}`)));
  const readers = Array.from({ length: n }, async (_, s) => {
    try {
      for await (const ev of basin.stream(`${prefix}-${s}`).read({ seqNum: 0 }, {}, { signal: stop.signal })) {
        if (ev.type !== "batch") continue;
        const now = performance.now();
        for (const r of ev.records) {
          lat.push(now - Buffer.from(r.body).readDoubleBE(0));
          delivered++;
        }
      }
    } catch (e) {
      if (!stop.signal.aborted) throw e;
    }
  });
  await sleep(200);
  await Promise.all(
    Array.from({ length: n }, async (_, s) => {
      const session = await basin.stream(`${prefix}-${s}`).appender();
      await sleep(Math.random() * 50);
      while (performance.now() < until) {
        const body = Buffer.alloc(256);
        body.writeDoubleBE(performance.now(), 0);
        await session.append({ records: [{ headers: [], body }] });
        written++;
        await sleep(50);
      }
      await session.close();
    }),
  );
  for (let i = 0; i < 100 && delivered < written; i++) await sleep(20);
  stop.abort();
  await Promise.all(readers);
  lat.sort((a, b) => a - b);
  return {
    streams: n,
    written,
    delivered,
    e2e_p50_ms: round(percentile(lat, 50), 2),
    e2e_p99_ms: round(percentile(lat, 99), 2),
  };
}

function peakRssMiB(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? round(Number(m[1]) / 1024, 1) : NaN;
}

/** RssAnon and RssFile of a process, MiB. */
function rssParts(pid) {
  const st = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(st)?.[1] ?? NaN) / 1024;
  return { anon: kb("RssAnon"), file: kb("RssFile") + kb("RssShmem") };
}

/** The 1 GiB session on a lite of its own, its memory sampled every 50 ms. */
async function rssSession() {
  const lite = await startBenchLite();
  const client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  try {
    const basin = `bench-rss-${process.pid}`;
    await client.basins.create(basin);
    await client.basin(basin).streams.create("rss");
    const idle = peakRssMiB(lite.pid);
    const peak = { anon: 0, file: 0 };
    const timer = setInterval(() => {
      const p = rssParts(lite.pid);
      peak.anon = Math.max(peak.anon, p.anon);
      peak.file = Math.max(peak.file, p.file);
    }, 50);
    let rate;
    try {
      rate = await sessionRate(client.basin(basin).stream("rss"), RSS_MIB, () => Buffer.alloc(1024, 0x65));
    } finally {
      clearInterval(timer);
    }
    return {
      mib: RSS_MIB,
      lite_peak_rss_mib: peakRssMiB(lite.pid),
      peak_anon_mib: round(peak.anon, 1),
      peak_file_backed_mib: round(peak.file, 1),
      baseline_after_startup_mib: idle,
      records_per_s: Math.round(rate),
      target: "<= 256 MiB",
    };
  } finally {
    await client.close?.();
    await lite.stop();
  }
}

async function main() {
  const lite = await startBenchLite();
  const client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  const out = { bench: "scenarios", quick: QUICK, seconds: SECONDS };
  try {
    const basinName = `bench-scen-${process.pid}`;
    await client.basins.create(basinName, {
      config: { default_stream_config: { retention_policy: { infinite: {} } } },
    });
    const b = client.basin(basinName);
    const idleRss = peakRssMiB(lite.pid);

    const serial = await smallAppends(b, "serial", 1, 1);
    const grouped = await smallAppends(b, "group", 16, 4);
    out.b5_group_commit = {
      records_per_s: Math.round(grouped),
      baseline_one_session_one_in_flight: Math.round(serial),
      ratio: ratio(grouped, serial),
      target: ">= 5",
    };

    for (const name of ["plain", "zlog", "zrand"]) await b.streams.create(name);
    const plain = await sessionRate(b.stream("plain"), SESSION_MIB, jsonLogBody);
    const zlog = await sessionRate(b.stream("zlog"), SESSION_MIB, jsonLogBody, "zstd");
    const randomBodies = Array.from({ length: 64 }, () => randomBytes(1024));
    const zrand = await sessionRate(b.stream("zrand"), SESSION_MIB, (i) => randomBodies[i % 64], "zstd");
    out.b7_zstd = {
      json_logs_records_per_s: Math.round(zlog),
      random_records_per_s: Math.round(zrand),
      baseline_uncompressed: Math.round(plain),
      json_logs_ratio: ratio(zlog, plain),
      random_ratio: ratio(zrand, plain),
      target: "json logs >= 0.5, random >= 0.8",
    };

    // Each run is a fraction of a second: three rounds, alternating, and the medians.
    const raw = { ...lite, basin: basinName };
    const rates = { h1: [], h2: [] };
    for (let i = 0; i < 3; i++) {
      for (const protocol of ["h2", "h1"]) {
        await b.streams.create(`raw-${protocol}-${i}`);
        rates[protocol].push(Math.round(await rawSession(raw, protocol, `raw-${protocol}-${i}`, SESSION_MIB)));
      }
    }
    const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const h1 = median(rates.h1);
    const h2 = median(rates.h2);
    out.b8_http1_session = {
      h1_records_per_s: h1,
      baseline_h2_records_per_s: h2,
      ratio: ratio(h1, h2),
      target: ">= 0.8",
      rounds: rates,
    };

    const lat = await svcBench(lite, basinName);
    out.e2e_latency_10mib = {
      ack_p50_ms: lat.ack_latency.p50_ms,
      ack_p99_ms: lat.ack_latency.p99_ms,
      e2e_p50_ms: lat.e2e_latency.p50_ms,
      e2e_p99_ms: lat.e2e_latency.p99_ms,
      e2e_p50_minus_ack_p50_ms: round(lat.e2e_latency.p50_ms - lat.ack_latency.p50_ms, 2),
      target: "e2e p50 <= ack p50 + 1 ms",
    };

    const one = await followedStreams(b, "one", 1);
    const many = await followedStreams(b, "many", 100);
    out.streams_100 = {
      ...many,
      baseline_one_stream_e2e_p50_ms: one.e2e_p50_ms,
      p50_ratio: ratio(many.e2e_p50_ms, one.e2e_p50_ms),
      complete: many.delivered === many.written,
    };

    out.rss_session = await rssSession();
    out.rss_session.earlier_scenarios_peak_rss_mib = peakRssMiB(lite.pid);
    out.rss_session.earlier_scenarios_after_startup_mib = idleRss;
  } finally {
    await client.close?.();
    await lite.stop();
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
