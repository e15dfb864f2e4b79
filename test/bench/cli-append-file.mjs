#!/usr/bin/env node
/**
 * `svc append -i FILE` as a user runs it (a fresh process, start-up included, spawn to exit)
 * against what the service takes from a client that does nothing but send: 4 concurrent unary
 * protobuf appends of the same records (1000-record batches of the same 1 KiB bodies, encoded
 * before the clock starts, over an undici pool in this process). Each side gets a fresh lite
 * (a new data dir), so both meet the same server state; the two alternate over
 * BENCH_CLI_APPEND_ROUNDS rounds (3) and the figures are medians, all from this run (the
 * machine is shared: compare the ratio, not the MiB/s).
 *
 * The file holds BENCH_CLI_APPEND_MIB MiB (256; 32 with BENCH_QUICK=1) of 1 KiB lines. Rates
 * are MiB/s of record bodies. BENCH_SVC_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles
 * each svc process (with SVC_UNBUNDLED=1 the profile maps to src/ through source maps).
 * Prints one JSON object as its last stdout line (run.mjs reads it).
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { BIN, ROOT, startBenchLite } from "./lib/lite.mjs";

const { encodeAppendInput } = await import(join(ROOT, "dist/wire/proto.js"));

const MIB = 1024 * 1024;
const QUICK = process.env.BENCH_QUICK === "1";
const SIZE_MIB = Number(process.env.BENCH_CLI_APPEND_MIB ?? (QUICK ? 32 : 256));
const ROUNDS = Number(process.env.BENCH_CLI_APPEND_ROUNDS ?? 3);
const LINE = 1024; // body bytes per record, newline excluded
const RECORDS = (SIZE_MIB * MIB) / LINE;
const BASIN = "bench-append-file";

const work = mkdtempSync(join(tmpdir(), "svc-bench-append-file-"));
const env = {
  ...process.env,
  HOME: work,
  XDG_CONFIG_HOME: join(work, "config"),
  XDG_DATA_HOME: join(work, "data"),
  FORCE_COLOR: "0",
};
// As in cli-throughput.mjs: a NODE_EXTRA_CA_CERTS naming a large bundle costs every node start
// ~50-85 ms, and lite is plain HTTP, so no process here needs it.
delete env.NODE_EXTRA_CA_CERTS;
const svcNodeArgs = (process.env.BENCH_SVC_NODE_ARGS ?? "").split(" ").filter(Boolean);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

async function writeInput(file) {
  const w = createWriteStream(file);
  const chunk = `${"z".repeat(LINE)}\n`.repeat(MIB / LINE);
  for (let i = 0; i < SIZE_MIB; i++) if (!w.write(chunk)) await new Promise((r) => w.once("drain", r));
  await new Promise((r) => w.end(r));
}

/** The same records as protobuf request bodies of 1000 records (the last one shorter). */
function protobufBodies() {
  const body = Buffer.alloc(LINE, 0x7a);
  const of = (n) =>
    Buffer.from(encodeAppendInput({ records: Array.from({ length: n }, () => ({ headers: [], body })) }));
  const full = of(1000);
  const bodies = Array.from({ length: Math.floor(RECORDS / 1000) }, () => full);
  if (RECORDS % 1000 > 0) bodies.push(of(RECORDS % 1000));
  return bodies;
}

/** A fresh lite with the basin and stream `s` made, and an undici pool on it. */
async function freshLite() {
  const lite = await startBenchLite();
  const pool = new Pool(lite.url, { connections: 4 });
  const call = async (method, path, body, headers = {}) => {
    const r = await pool.request({
      method,
      path,
      body,
      headers: { authorization: `Bearer ${lite.token}`, "svc-basin": BASIN, ...headers },
    });
    const text = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`${method} ${path} → ${r.statusCode} ${text}`);
    return text;
  };
  await call("POST", "/v1/basins", JSON.stringify({ basin: BASIN }), { "content-type": "application/json" });
  await call("PUT", "/v1/streams/s");
  const tail = async () => JSON.parse(await call("GET", "/v1/streams/s/records/tail")).tail.seq_num;
  return {
    lite,
    call,
    tail,
    async stop() {
      await pool.close();
      await lite.stop();
    },
  };
}

/** Seconds for 4 concurrent unary protobuf appends of every body, in order of taking. */
async function unaryC4(bodies) {
  const s = await freshLite();
  try {
    const headers = { "content-type": "application/protobuf", accept: "application/protobuf" };
    let next = 0;
    const t0 = performance.now();
    const lane = async () => {
      while (next < bodies.length) await s.call("POST", "/v1/streams/s/records", bodies[next++], headers);
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    const secs = (performance.now() - t0) / 1000;
    if ((await s.tail()) !== RECORDS) throw new Error("the unary appends did not store every record");
    return secs;
  } finally {
    await s.stop();
  }
}

/** Seconds from spawning `svc append -i FILE -q` to its exit. */
async function svcAppend(file) {
  const s = await freshLite();
  try {
    const secs = await new Promise((res, rej) => {
      const child = spawn(process.execPath, [...svcNodeArgs, BIN, "append", `svc://${BASIN}/s`, "-i", file, "-q"], {
        env: { ...env, ...s.lite.env },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let err = "";
      child.stderr.on("data", (d) => (err += d));
      const t0 = process.hrtime.bigint();
      child.on("error", rej);
      child.on("close", (code) =>
        code === 0
          ? res(Number(process.hrtime.bigint() - t0) / 1e9)
          : rej(new Error(`svc append exited ${code}: ${err}`)),
      );
    });
    if ((await s.tail()) !== RECORDS) throw new Error("svc append did not store every record");
    return secs;
  } finally {
    await s.stop();
  }
}

async function main() {
  const file = join(work, "lines.txt");
  await writeInput(file);
  const bodies = protobufBodies();
  const times = { svc: [], unary: [] };
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first, so neither always meets the other's leftovers (page cache, heat).
    if (i % 2 === 0) {
      times.svc.push(await svcAppend(file));
      times.unary.push(await unaryC4(bodies));
    } else {
      times.unary.push(await unaryC4(bodies));
      times.svc.push(await svcAppend(file));
    }
  }
  const rate = (secs) => round(SIZE_MIB / secs, 1);
  const svc = rate(median(times.svc));
  const unary = rate(median(times.unary));
  console.log(
    JSON.stringify({
      bench: "cli-append-file",
      size_mib: SIZE_MIB,
      record_bytes: LINE,
      records: RECORDS,
      rounds: ROUNDS,
      svc_append_mib_s: svc,
      unary_protobuf_c4_mib_s: unary,
      ratio: round(svc / unary),
      round_ratios: times.svc.map((t, i) => round(times.unary[i] / t)),
      seconds: { svc: times.svc.map((x) => round(x)), unary: times.unary.map((x) => round(x)) },
      note: "svc: a fresh `svc append -i FILE -q` process, spawn to exit; unary: 4 concurrent unary protobuf appends of the same records from this process; each on a fresh lite; medians",
    }),
  );
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
