#!/usr/bin/env node
/**
 * CLI start-up (scenario B1 of docs/design/performance.md, "The scenarios `npm run bench` holds to
 * targets"): `svc --version`, `svc --help` and `svc basin list` (against a running lite) timed as
 * whole processes, interleaved round by round with `node -e 0`, so every ratio compares runs taken
 * under the same load. B2: one-shot `svc append` of 1 record, `svc read -n 1` and `svc basin list`,
 * each against a bare node:http script sending the same request in a fresh process (`vs_bare`).
 * Reported with the environment as it is (a NODE_EXTRA_CA_CERTS naming a large bundle adds ~85 ms
 * to every node start: docs/design/performance.md, "CLI start-up") and without that variable.
 *
 *   node test/bench/cli-startup.mjs        (BENCH_STARTUP_ROUNDS=21 by default; build first)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, percentile, round, startBenchLite } from "./lib/lite.mjs";

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 21);

function time(args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** A bare node:http script doing one request, as a `node -e` argument. */
function bare(url, token, method, path, body, headers = {}) {
  const opts = { method, headers: { authorization: `Bearer ${token}`, ...headers } };
  return `const r=require("node:http").request(${JSON.stringify(url + path)},${JSON.stringify(opts)},(res)=>{let s="";res.on("data",(d)=>s+=d);res.on("end",()=>{if(res.statusCode>=300){console.error(s);process.exit(1)}process.stdout.write(s)})});r.end(${JSON.stringify(body ?? "")});`;
}

const PAIRS = { svc_append_1: "bare_append_1", svc_read_1: "bare_read_1", svc_basin_list: "bare_basin_list" };

function measure(env, cases) {
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < ROUNDS; i++) for (const [k, args] of Object.entries(cases)) samples[k].push(time(args, env));
  const med = Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [
      k,
      percentile(
        v.sort((a, b) => a - b),
        50,
      ),
    ]),
  );
  const out = {};
  for (const [k, v] of Object.entries(med)) {
    out[k] = { median_ms: round(v, 1), vs_node_e_0: round(v / med.node_e_0, 2) };
    if (PAIRS[k] && med[PAIRS[k]]) out[k].vs_bare = round(v / med[PAIRS[k]], 2);
  }
  return out;
}

async function main() {
  const lite = await startBenchLite();
  const home = mkdtempSync(join(tmpdir(), "svc-bench-startup-"));
  try {
    const base = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "config"), ...lite.env };
    const basin = `bench-startup-${process.pid}`;
    const uri = `svc://${basin}/one`;
    const one = join(home, "one.txt");
    writeFileSync(one, "one record\n");
    for (const args of [
      ["basin", "create", basin],
      ["stream", "create", uri],
    ])
      time([BIN, ...args], base);
    const h = { "svc-basin": basin };
    const cases = {
      node_e_0: ["-e", "0"],
      svc_version: [BIN, "--version"],
      svc_help: [BIN, "--help"],
      svc_basin_list: [BIN, "basin", "list"],
      bare_basin_list: ["-e", bare(lite.url, lite.token, "GET", "/v1/basins")],
      svc_append_1: [BIN, "append", uri, "-i", one, "-q"],
      bare_append_1: [
        "-e",
        bare(
          lite.url,
          lite.token,
          "POST",
          "/v1/streams/one/records",
          JSON.stringify({ records: [{ body: "one record" }] }),
          { ...h, "content-type": "application/json" },
        ),
      ],
      svc_read_1: [BIN, "read", uri, "-s", "0", "-n", "1"],
      bare_read_1: ["-e", bare(lite.url, lite.token, "GET", "/v1/streams/one/records?seq_num=0&count=1", undefined, h)],
    };
    const plain = { ...base };
    delete plain.NODE_EXTRA_CA_CERTS;
    console.log(
      JSON.stringify({
        bench: "cli-startup",
        rounds: ROUNDS,
        environment_as_is: measure(base, cases),
        without_node_extra_ca_certs: measure(plain, cases),
      }),
    );
  } finally {
    await lite.stop();
    rmSync(home, { recursive: true, force: true }); // it was left in the temp dir
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
