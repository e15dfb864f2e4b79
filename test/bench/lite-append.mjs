/**
 * Unary append through the BUILT svc lite (durable, lmdb, a temp data dir), from one client
 * process over HTTP/1.1 (undici):
 *   - throughput: batches of 1000 × 1 KiB records, protobuf and JSON (svc-format raw),
 *     1 and 4 requests in flight;
 *   - latency: single-record appends, one at a time, p50/p99.
 * Each phase runs BENCH_SECONDS (default 2). Prints one JSON object on stdout.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Pool } from "undici";

const ROOT = resolve(import.meta.dirname, "../..");
const { encodeAppendInput } = await import(join(ROOT, "dist/wire/proto.js"));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);

function startLite(dataDir) {
  const child = spawn(process.execPath, [join(ROOT, "bin/svc.js"), "lite", "--port", "0", "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Promise((res, rej) => {
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      const url = /SVC_ACCOUNT_ENDPOINT=(\S+)/.exec(out)?.[1];
      const token = /SVC_ACCESS_TOKEN=(\S+)/.exec(out)?.[1];
      if (url && token) res({ child, url, token });
    });
    child.once("exit", (code) => rej(new Error(`svc lite exited ${code}`)));
  });
}

const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-lite-"));
const lite = await startLite(dataDir);
const pool = new Pool(lite.url, { connections: 8 });
const auth = { authorization: `Bearer ${lite.token}`, "svc-basin": "bench-basin-01" };

async function call(method, path, body, headers = {}) {
  const r = await pool.request({ method, path, body, headers: { ...auth, ...headers } });
  const text = await r.body.text();
  if (r.statusCode >= 300) throw new Error(`${method} ${path} → ${r.statusCode} ${text}`);
  return text;
}

await call("POST", "/v1/basins", JSON.stringify({ basin: "bench-basin-01" }), { "content-type": "application/json" });

const body = Buffer.alloc(1024, 0x61);
const records = Array.from({ length: 1000 }, () => ({ headers: [], body }));
const protoBody = Buffer.from(encodeAppendInput({ records }));
const jsonBody = JSON.stringify({ records: records.map(() => ({ body: body.toString("latin1") })) });

let streamNo = 0;
async function throughput(kind, inflight) {
  const stream = `t${++streamNo}`;
  const path = `/v1/streams/${stream}/records`;
  await call("PUT", `/v1/streams/${stream}`);
  const headers =
    kind === "protobuf"
      ? { "content-type": "application/protobuf", accept: "application/protobuf" }
      : { "content-type": "application/json" };
  const payload = kind === "protobuf" ? protoBody : jsonBody;
  let done = 0;
  const lat = [];
  const t0 = performance.now();
  const lane = async () => {
    while (performance.now() - t0 < SECONDS * 1000) {
      const s = performance.now();
      await call("POST", path, payload, headers);
      lat.push(performance.now() - s);
      done += 1000;
    }
  };
  await Promise.all(Array.from({ length: inflight }, lane));
  lat.sort((a, b) => a - b);
  return {
    records_per_s: Math.round(done / ((performance.now() - t0) / 1000)),
    request_p50_ms: Number(lat[lat.length >> 1].toFixed(2)),
  };
}

async function latency() {
  await call("PUT", "/v1/streams/lat");
  const payload = JSON.stringify({ records: [{ body: "x".repeat(100) }] });
  const lat = [];
  const t0 = performance.now();
  while (performance.now() - t0 < SECONDS * 1000) {
    const s = performance.now();
    await call("POST", "/v1/streams/lat/records", payload, { "content-type": "application/json" });
    lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  const pct = (p) => Number(lat[Math.min(lat.length - 1, Math.floor(lat.length * p))].toFixed(3));
  return { p50_ms: pct(0.5), p99_ms: pct(0.99), appends: lat.length };
}

const result = {
  lite_unary_append_protobuf_c1: await throughput("protobuf", 1),
  lite_unary_append_protobuf_c4: await throughput("protobuf", 4),
  lite_unary_append_json_c1: await throughput("json", 1),
  lite_unary_append_json_c4: await throughput("json", 4),
  lite_unary_append_single_record_latency: await latency(),
};
await pool.close();
lite.child.kill("SIGTERM");
await new Promise((r) => lite.child.once("exit", r));
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify(result));
