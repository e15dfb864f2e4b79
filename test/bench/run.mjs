/**
 * `npm run bench`: runs every benchmark script in test/bench (each `*.mjs` except this one),
 * one after another in its own process (the machine has 2 shared cores), and prints ONE JSON
 * document: each script's figures under its name, plus the lite append ratios against the
 * lmdb baseline measured in the same run (the machine is noisy: compare ratios).
 *
 * Every script prints one JSON object as its last stdout line. BENCH_ONLY=<substring> runs
 * only the matching scripts (e.g. BENCH_ONLY=lite- for the svc lite figures).
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";

const here = import.meta.dirname;
const only = process.env.BENCH_ONLY ?? "";
// The baseline first, so the figures that are compared with it come from the same minutes.
const scripts = readdirSync(here)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs" && f.includes(only))
  .sort((a, b) => (a === "lite-lmdb-baseline.mjs" ? -1 : b === "lite-lmdb-baseline.mjs" ? 1 : a.localeCompare(b)));

const figures = {};
for (const script of scripts) {
  const name = script.replace(/\.mjs$/, "");
  try {
    const out = execFileSync(process.execPath, [join(here, script)], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    figures[name] = JSON.parse(out.trim().split("\n").pop());
  } catch (e) {
    figures[name] = { error: String(e.message ?? e).split("\n")[0] };
  }
}

const doc = { machine: { node: process.version, cpus: cpus().length }, figures };
const base = figures["lite-lmdb-baseline"];
const app = figures["lite-append"];
if (base?.lmdb_durable_batch1000_records_per_s && app?.lite_unary_append_protobuf_c1) {
  const ratio = (x) => Number((x / base.lmdb_durable_batch1000_records_per_s).toFixed(3));
  doc.lite_unary_append_vs_lmdb_durable_batch1000 = {
    protobuf_c1: ratio(app.lite_unary_append_protobuf_c1.records_per_s),
    protobuf_c4: ratio(app.lite_unary_append_protobuf_c4.records_per_s),
    json_c1: ratio(app.lite_unary_append_json_c1.records_per_s),
    json_c4: ratio(app.lite_unary_append_json_c4.records_per_s),
  };
  doc.lite_single_record_latency_vs_lmdb_single_put = {
    p50: Number((app.lite_unary_append_single_record_latency.p50_ms / base.lmdb_durable_single_put_p50_ms).toFixed(2)),
    p99: Number((app.lite_unary_append_single_record_latency.p99_ms / base.lmdb_durable_single_put_p99_ms).toFixed(2)),
  };
}
console.log(JSON.stringify(doc, null, 2));
