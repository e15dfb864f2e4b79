#!/usr/bin/env node
/**
 * CLI throughput (issue 6 figures): `svc append` from a file of 1 KiB lines and `svc read` of
 * the same stream to /dev/null, in MiB/s of record bodies, against the raw HTTP/2 loopback
 * throughput of the same run (a node:http2 server here, a client in a child process, moving the
 * same number of bytes in 64 KiB chunks each way). The server is warmed up first with one
 * append and one read of the same file on another stream. Prints one JSON object on one line
 * (run.mjs reads the last stdout line).
 *
 *   node test/bench/cli-throughput.mjs            (BENCH_CLI_MIB=64 by default; build first)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, closeSync, createWriteStream, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rawHttp2 } from "./lib/raw-http2.mjs";
import { BIN, startBenchLite } from "./lib/lite.mjs";

const MIB = 1024 * 1024;
const SIZE_MIB = Number(process.env.BENCH_CLI_MIB ?? 64);
const LINE = 1024; // bytes per record body, newline excluded

const work = mkdtempSync(join(tmpdir(), "svc-bench-cli-"));
const env = { ...process.env, HOME: work, XDG_CONFIG_HOME: join(work, "config"), XDG_DATA_HOME: join(work, "data"), FORCE_COLOR: "0" };

function run(args, { stdout = "pipe" } = {}) {
  return new Promise((res, rej) => {
    const out = stdout === "devnull" ? openSync("/dev/null", "w") : "pipe";
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", out, "pipe"] });
    let err = "";
    let text = "";
    child.stderr.on("data", (d) => (err += d));
    child.stdout?.on("data", (d) => (text += d));
    const t0 = process.hrtime.bigint();
    child.on("error", rej);
    child.on("close", (code) => {
      if (typeof out === "number") closeSync(out);
      const secs = Number(process.hrtime.bigint() - t0) / 1e9;
      code === 0 ? res({ secs, stdout: text }) : rej(new Error(`svc ${args.join(" ")} exited ${code}: ${err}`));
    });
  });
}

async function writeInput(file) {
  const w = createWriteStream(file);
  const line = "z".repeat(LINE) + "\n";
  const chunk = line.repeat(MIB / LINE);
  for (let i = 0; i < SIZE_MIB; i++) if (!w.write(chunk)) await new Promise((r) => w.once("drain", r));
  await new Promise((r) => w.end(r));
}

const round = (x) => Math.round(x * 10) / 10;

async function main() {
  const lite = await startBenchLite();
  Object.assign(env, lite.env);
  try {
    const basin = `bench-cli-${process.pid}`;
    const uri = `svc://${basin}/throughput`;
    await run(["basin", "create", basin]);
    await run(["stream", "create", uri]);
    const file = join(work, "lines.txt");
    await writeInput(file);
    // The server warms up first (its hot paths compiled, its data file grown), as it is for the
    // session figures these are compared with: one append and one read of the same file on
    // another stream. The CLI processes themselves are always fresh: that is what a user runs.
    await run(["stream", "create", `svc://${basin}/warmup`]);
    await run(["append", `svc://${basin}/warmup`, "-i", file, "-q"]);
    await run(["read", `svc://${basin}/warmup`, "-s", "0", "-e"], { stdout: "devnull" });
    const records = (SIZE_MIB * MIB) / LINE;
    const bodyMiB = (records * LINE) / MIB;
    const append = await run(["append", uri, "-i", file, "-q"]);
    const read = await run(["read", uri, "-s", "0", "-e"], { stdout: "devnull" });
    const tail = Number((await run(["check-tail", uri, "--seq-only"])).stdout.trim());
    if (tail !== records) throw new Error(`expected ${records} records, the tail is ${tail}`);
    const raw = await rawHttp2({ totalBytes: SIZE_MIB * MIB, chunkBytes: 64 * 1024 });
    const appendRate = bodyMiB / append.secs;
    const readRate = bodyMiB / read.secs;
    console.log(JSON.stringify({
      bench: "cli-throughput",
      size_mib: SIZE_MIB, record_bytes: LINE, records,
      append_mib_s: round(appendRate), append_secs: round(append.secs),
      read_mib_s: round(readRate), read_secs: round(read.secs),
      raw_http2_upload_mib_s: round(raw.uploadMiBs), raw_http2_download_mib_s: round(raw.downloadMiBs),
      append_vs_raw_upload: Math.round((appendRate / raw.uploadMiBs) * 1000) / 1000,
      read_vs_raw_download: Math.round((readRate / raw.downloadMiBs) * 1000) / 1000,
      note: "svc times include process start (~0.2 s); rates are of record bodies",
    }));
  } finally {
    await lite.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
