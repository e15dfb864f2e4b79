#!/usr/bin/env node
/**
 * CLI start-up (performance.md B1): `svc --version`, `svc --help` and `svc basin list` (against
 * a running lite) timed as whole processes, interleaved round by round with `node -e 0`, so
 * every ratio compares runs taken under the same load. Reported with the machine's environment
 * as it is (this workplace's NODE_EXTRA_CA_CERTS adds ~85 ms to every node start) and without
 * that variable.
 *
 *   node test/bench/cli-startup.mjs        (BENCH_STARTUP_ROUNDS=21 by default; build first)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, startBenchLite, round, percentile } from "./lib/lite.mjs";

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 21);

function time(args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function measure(env, cases) {
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < ROUNDS; i++) for (const [k, args] of Object.entries(cases)) samples[k].push(time(args, env));
  const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, percentile(v.sort((a, b) => a - b), 50)]));
  const out = {};
  for (const [k, v] of Object.entries(med)) out[k] = { median_ms: round(v, 1), vs_node_e_0: round(v / med.node_e_0, 2) };
  return out;
}

async function main() {
  const lite = await startBenchLite();
  try {
    const home = mkdtempSync(join(tmpdir(), "svc-bench-startup-"));
    const base = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "config"), ...lite.env };
    const cases = {
      node_e_0: ["-e", "0"],
      svc_version: [BIN, "--version"],
      svc_help: [BIN, "--help"],
      svc_basin_list: [BIN, "basin", "list"],
    };
    const plain = { ...base };
    delete plain.NODE_EXTRA_CA_CERTS;
    console.log(JSON.stringify({
      bench: "cli-startup",
      rounds: ROUNDS,
      environment_as_is: measure(base, cases),
      without_node_extra_ca_certs: measure(plain, cases),
    }));
  } finally {
    await lite.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
