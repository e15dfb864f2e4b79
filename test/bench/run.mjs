/**
 * `npm run bench`: runs every benchmark script in test/bench (each `*.mjs` except this one),
 * one after another in its own process (so they never compete for the cores), and prints ONE JSON
 * document: each script's figures under its name, plus the lite append ratios against the
 * lmdb baseline measured in the same run (shared machines are noisy: compare ratios).
 *
 * Every script prints one JSON object as its last stdout line. BENCH_ONLY=<substring> runs
 * only the matching scripts (e.g. BENCH_ONLY=lite- for the svc lite figures).
 *
 * `scenarios` then lists the scenarios B1-B8 and the rest of docs/design/performance.md, "The
 * scenarios `npm run bench` holds to targets", each as {figure, baseline, ratio, target}.
 * BENCH_QUICK=1 shrinks every script's sizes (about 2 minutes in all) and skips lite-auth.
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";

const here = import.meta.dirname;
const only = process.env.BENCH_ONLY ?? "";
const QUICK = process.env.BENCH_QUICK === "1";
const quickEnv = QUICK
  ? {
      BENCH_SECONDS: "1",
      BENCH_SESSION_MIB: "32",
      BENCH_CLI_MIB: "16",
      BENCH_STARTUP_ROUNDS: "5",
      BENCH_RSS_MIB: "128",
      BENCH_PG_SECS: "2",
    }
  : {};
// The baseline first, so the figures that are compared with it come from the same minutes.
const scripts = readdirSync(here)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs" && f.includes(only) && !(QUICK && f === "lite-auth.mjs"))
  .sort((a, b) => (a === "lite-lmdb-baseline.mjs" ? -1 : b === "lite-lmdb-baseline.mjs" ? 1 : a.localeCompare(b)));

const figures = {};
for (const script of scripts) {
  const name = script.replace(/\.mjs$/, "");
  try {
    const out = execFileSync(process.execPath, [join(here, script)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, ...quickEnv },
    });
    figures[name] = JSON.parse(out.trim().split("\n").pop());
  } catch (e) {
    figures[name] = { error: String(e.message ?? e).split("\n")[0] };
  }
}

const doc = {
  machine: { node: process.version, cpus: cpus().length },
  quick: QUICK,
  scenarios: scenarios(figures),
  figures,
};
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

/** lite on PostgreSQL (pg-nodes.mjs): one session against lmdb in the same run, scaling over nodes, cross-node follow. */
function pgRows(pg) {
  const agg = pg.aggregate_30_streams ?? {};
  return {
    session_vs_lmdb: row(pg.session_1kib_records_per_s?.postgres, pg.session_1kib_records_per_s?.lmdb, "recorded", {
      unit: "records/s, one append session, 1 KiB records",
    }),
    aggregate_3_vs_1_nodes: row(agg.nodes_3?.records_per_s, agg.nodes_1?.records_per_s, "recorded", {
      unit: "records/s, 30 streams on one database",
    }),
    cross_node_follow_10mib: pg.cross_node_follow_latency_at_10_mib_s ?? { missing: true },
  };
}

/**
 * lite nodes on PostgreSQL at request level (pg-scale.mjs): "near" is the database on loopback,
 * "far" 2 ms away each way through a delaying proxy; 32 keep-alive clients.
 */
function pgScaleRows(s) {
  const per = (x) => x?.per_s;
  const fig = (figure, target, unit) =>
    typeof figure === "number" ? { figure, target, unit } : { missing: true, unit };
  const refused = (x) => (x ? { refused: x.refused, target: 0 } : { missing: true });
  const a = (where, n) => s[`appends_one_stream_${where}`]?.[`nodes_${n}`];
  const ss = s.session_1kib_records_per_s ?? {};
  return {
    check_tail_near_vs_lmdb: row(per(s.near?.check_tail), per(s.lmdb?.check_tail), ">= 0.25", { unit: "requests/s" }),
    read_10_near_vs_lmdb: row(per(s.near?.read_10), per(s.lmdb?.read_10), ">= 0.25", {
      unit: "10-record unary reads/s",
    }),
    check_tail_far: fig(per(s.far?.check_tail), ">= 1500", "requests/s"),
    read_10_far: fig(per(s.far?.read_10), ">= 1500", "10-record unary reads/s"),
    appends_one_stream_far_2_nodes: fig(
      per(a("far", 2)),
      ">= 1500",
      "1-record unary appends acked/s, one stream, 2 nodes",
    ),
    appends_refused: {
      near_2: refused(a("near", 2)),
      near_3: refused(a("near", 3)),
      far_2: refused(a("far", 2)),
      far_3: refused(a("far", 3)),
    },
    session_near_vs_lmdb: row(ss.near, ss.lmdb, ">= 0.5", { unit: "records/s, one append session, 1 KiB records" }),
    session_far_vs_lmdb: row(ss.far, ss.lmdb, "recorded", { unit: "records/s, one append session, 1 KiB records" }),
    streams_30: s.streams_30_records_per_s ?? { missing: true },
  };
}

/** One row: the figure, its same-run baseline, the ratio and the target it is held to. */
function row(figure, baseline, target, extra = {}) {
  if (typeof figure !== "number" || typeof baseline !== "number") return { missing: true, ...extra };
  return { figure, baseline, ratio: Number((figure / baseline).toFixed(3)), target, ...extra };
}

function scenarios(f) {
  const st = f["cli-startup"] ?? {};
  const plain = st.without_node_extra_ca_certs ?? {};
  const asIs = st.environment_as_is ?? {};
  const se = f["session-throughput"] ?? {};
  const la = f["lite-append"] ?? {};
  const lb = f["lite-lmdb-baseline"] ?? {};
  const ct = f["cli-throughput"] ?? {};
  const caf = f["cli-append-file"] ?? {};
  const sc = f.scenarios ?? {};
  const startup = (env, k, base = "node_e_0") => row(env[k]?.median_ms, env[base]?.median_ms, "<= 1.5");
  return {
    B1_startup: {
      svc_version: startup(plain, "svc_version"),
      svc_help: startup(plain, "svc_help"),
      svc_version_with_extra_ca: startup(asIs, "svc_version"),
      svc_help_with_extra_ca: startup(asIs, "svc_help"),
      unit: "ms, median; baseline node -e 0",
    },
    B2_one_shot: {
      append_1: row(plain.svc_append_1?.median_ms, plain.bare_append_1?.median_ms, "<= 1.5"),
      read_1: row(plain.svc_read_1?.median_ms, plain.bare_read_1?.median_ms, "<= 1.5"),
      basin_list: row(plain.svc_basin_list?.median_ms, plain.bare_basin_list?.median_ms, "<= 1.5"),
      unit: "ms, median, no NODE_EXTRA_CA_CERTS; baseline a bare node:http script",
    },
    B3_unary_append: {
      protobuf_c4: row(
        la.lite_unary_append_protobuf_c4?.records_per_s,
        lb.lmdb_durable_batch1000_records_per_s,
        "recorded",
      ),
      json_c4: row(la.lite_unary_append_json_c4?.records_per_s, lb.lmdb_durable_batch1000_records_per_s, "recorded"),
      unit: "records/s; baseline lmdb durable 1000-record batches, one at a time",
    },
    B4_append_session: {
      vs_unary_protobuf_c4: row(
        se.append_session_1kib?.records_per_s,
        la.lite_unary_append_protobuf_c4?.records_per_s,
        ">= 1.2",
        { unit: "records/s" },
      ),
      vs_raw_h2_upload: row(se.append_session_1kib?.mib_s, se.raw_h2?.upload_mib_s, ">= 0.3", { unit: "MiB/s" }),
    },
    B5_group_commit: row(
      sc.b5_group_commit?.records_per_s,
      sc.b5_group_commit?.baseline_one_session_one_in_flight,
      ">= 5",
      { unit: "records/s, 16 sessions x 4 in flight vs 1 x 1" },
    ),
    B6_read_catchup: row(se.read_session_catchup_1kib?.mib_s, se.raw_h2?.download_mib_s, ">= 0.5", {
      unit: "MiB/s; baseline raw HTTP/2 download",
    }),
    B7_zstd: {
      json_logs: row(sc.b7_zstd?.json_logs_records_per_s, sc.b7_zstd?.baseline_uncompressed, ">= 0.5"),
      random: row(sc.b7_zstd?.random_records_per_s, sc.b7_zstd?.baseline_uncompressed, ">= 0.8"),
      unit: "records/s; baseline the same session uncompressed",
    },
    B8_http1_session: row(
      sc.b8_http1_session?.h1_records_per_s,
      sc.b8_http1_session?.baseline_h2_records_per_s,
      ">= 0.8",
      { unit: "records/s; same raw client over h2c" },
    ),
    cli_append_file: row(ct.append_mib_s, se.append_session_1kib?.mib_s, ">= 0.8", {
      unit: "MiB/s; baseline the append session; no NODE_EXTRA_CA_CERTS",
      fresh_process_floor: row(ct.bare_append_mib_s, se.append_session_1kib?.mib_s, "recorded", {
        unit: "MiB/s of a fresh process sending ready-made frames (lib/bare-session.mjs); baseline the append session",
      }),
      vs_fresh_process_floor: row(ct.append_mib_s, ct.bare_append_mib_s, "recorded"),
      steady_state: row(ct.steady_append_mib_s, se.append_session_1kib?.mib_s, "recorded", {
        unit: "MiB/s of svc append once running: the extra bytes of a 4x longer file over the extra time (fixed costs cancel); baseline the append session",
      }),
    }),
    cli_append_file_vs_unary_c4: row(caf.svc_append_mib_s, caf.unary_protobuf_c4_mib_s, ">= 0.8", {
      unit: "MiB/s; a fresh `svc append -i FILE` process (256 MiB of 1 KiB lines) against 4 concurrent unary protobuf appends of the same records, each on a fresh lite (cli-append-file.mjs)",
      round_ratios: caf.round_ratios,
    }),
    cli_read_devnull: row(ct.read_mib_s, se.read_session_catchup_1kib?.mib_s, ">= 0.8", {
      unit: "MiB/s; baseline the read session; no NODE_EXTRA_CA_CERTS",
      fresh_process_floor: row(ct.bare_read_mib_s, se.read_session_catchup_1kib?.mib_s, "recorded", {
        unit: "MiB/s of a fresh process reading without decoding (lib/bare-session.mjs); baseline the read session",
      }),
      vs_fresh_process_floor: row(ct.read_mib_s, ct.bare_read_mib_s, "recorded"),
      steady_state: row(ct.steady_read_mib_s, se.read_session_catchup_1kib?.mib_s, "recorded", {
        unit: "MiB/s of svc read once running: the extra bytes of a 4x longer stream over the extra time (fixed costs cancel); baseline the read session",
      }),
    }),
    ack_latency_10mib: {
      p50: row(se.ack_latency_at_10_mib_s?.p50_ms, lb.lmdb_durable_single_put_p50_ms, "<= 3", {
        unit: "ms; baseline lmdb durable put p50",
      }),
      p99_ms: se.ack_latency_at_10_mib_s?.p99_ms,
      p99_target_ms: 10,
      // Context, not the target's baseline: lmdb's own durable put of one such input, paced the same way.
      vs_paced_lmdb_64_record_put: row(
        se.ack_latency_at_10_mib_s?.p50_ms,
        lb.lmdb_durable_64_record_put_paced_10mib_p50_ms,
        "recorded",
        { unit: "ms; baseline lmdb durable put of a 64-record input every 6.25 ms, p50" },
      ),
    },
    e2e_latency_10mib: sc.e2e_latency_10mib ?? { missing: true },
    streams_100: sc.streams_100 ?? { missing: true },
    lite_peak_rss: sc.rss_session ?? { missing: true },
    postgres: pgRows(f["pg-nodes"] ?? {}),
    postgres_scale: pgScaleRows(f["pg-scale"] ?? {}),
    provisioning: provisioningRows(f.provisioning ?? {}),
  };
}

/** Stream creations at concurrency 64 against the same statements sent straight to PostgreSQL. */
function provisioningRows(p) {
  const c = p.c64 ?? {};
  const direct = c.direct_sql?.create?.per_s;
  return {
    postgres_create_c64: row(c.postgres?.create?.per_s, direct, ">= 0.8"),
    lmdb_create_c64: row(c.lmdb?.create?.per_s, direct, ">= 2"),
    unit: "stream creations/s; baseline the same statements straight to PostgreSQL, pool of 10",
  };
}
