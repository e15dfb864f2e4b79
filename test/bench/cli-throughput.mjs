#!/usr/bin/env node
/**
 * CLI throughput: `svc append` from a file of 1 KiB lines and `svc read` of
 * the same stream to /dev/null, in MiB/s of record bodies, against the raw HTTP/2 loopback
 * throughput of the same run (a node:http2 server here, a client in a child process, moving the
 * same number of bytes in 64 KiB chunks each way). The server is warmed up first with one
 * append and one read of the same file on another stream. Prints one JSON object on one line
 * (run.mjs reads the last stdout line).
 *
 * The floor: each svc process is fresh, while the session figures it is compared with
 * come from a warm process. lib/bare-session.mjs is a fresh process that does only the wire work
 * (ready-made append frames from a file; a read that decodes nothing), timed the same way
 * against the same server: what any fresh process reaches here. Medians of three rounds.
 *
 * The steady state: every round also appends and reads a file four times as long
 * (BENCH_CLI_LONG_MIB). What the extra bytes cost, (long - short) / (t_long - t_short) from the
 * medians, is svc's rate once running: the fixed costs of a fresh process (node's start, loading
 * svc, connecting, code not yet compiled by the JIT) are in both times and cancel.
 *
 *   node test/bench/cli-throughput.mjs            (BENCH_CLI_MIB=64 by default; build first)
 */
import { spawn } from "node:child_process";
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, ROOT, startBenchLite } from "./lib/lite.mjs";
import { rawHttp2 } from "./lib/raw-http2.mjs";

const MIB = 1024 * 1024;
const SIZE_MIB = Number(process.env.BENCH_CLI_MIB ?? 64);
const LONG_MIB = Number(process.env.BENCH_CLI_LONG_MIB ?? 4 * SIZE_MIB);
const LINE = 1024; // bytes per record body, newline excluded

const work = mkdtempSync(join(tmpdir(), "svc-bench-cli-"));
const env = {
  ...process.env,
  HOME: work,
  XDG_CONFIG_HOME: join(work, "config"),
  XDG_DATA_HOME: join(work, "data"),
  FORCE_COLOR: "0",
};
// Every process here is timed from spawn to exit, and a NODE_EXTRA_CA_CERTS naming a large bundle
// adds ~50-85 ms to every node start (cli-startup.mjs measures both ways); lite is plain HTTP, so no
// process here needs it. Without it, as on a user's machine (svc and the floor alike).
delete env.NODE_EXTRA_CA_CERTS;

const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 3);
const BARE = join(import.meta.dirname, "lib/bare-session.mjs");

function run(args, { stdout = "pipe", script = BIN } = {}) {
  return new Promise((res, rej) => {
    const out = stdout === "devnull" ? openSync("/dev/null", "w") : "pipe";
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ["ignore", out, "pipe"] });
    let err = "";
    let text = "";
    child.stderr.on("data", (d) => (err += d));
    child.stdout?.on("data", (d) => (text += d));
    const t0 = process.hrtime.bigint();
    child.on("error", rej);
    child.on("close", (code) => {
      if (typeof out === "number") closeSync(out);
      const secs = Number(process.hrtime.bigint() - t0) / 1e9;
      code === 0
        ? res({ secs, stdout: text })
        : rej(new Error(`${script === BIN ? "svc" : script} ${args.join(" ")} exited ${code}: ${err}`));
    });
  });
}

async function writeInput(file, mib) {
  const w = createWriteStream(file);
  const line = "z".repeat(LINE) + "\n";
  const chunk = line.repeat(MIB / LINE);
  for (let i = 0; i < mib; i++) if (!w.write(chunk)) await new Promise((r) => w.once("drain", r));
  await new Promise((r) => w.end(r));
}

/** The same records as append-session frames of 1,000 records (svc append's batches here). */
async function writeFrames(file, records) {
  const { encodeAppendInput } = await import(join(ROOT, "dist/wire/proto.js"));
  const { encodeFrameInPlace } = await import(join(ROOT, "dist/wire/framing.js"));
  const body = Buffer.alloc(LINE, 0x7a);
  const w = createWriteStream(file);
  let inputs = 0;
  for (let n = 0; n < records; n += 1000) {
    const input = { records: Array.from({ length: Math.min(1000, records - n) }, () => ({ headers: [], body })) };
    if (!w.write(encodeFrameInPlace((reserve) => encodeAppendInput(input, reserve))))
      await new Promise((r) => w.once("drain", r));
    inputs++;
  }
  await new Promise((r) => w.end(r));
  return inputs;
}

const round = (x) => Math.round(x * 10) / 10;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const lite = await startBenchLite();
  Object.assign(env, lite.env);
  try {
    const basin = `bench-cli-${process.pid}`;
    const uri = `svc://${basin}/throughput`;
    await run(["basin", "create", basin]);
    await run(["stream", "create", uri]);
    const file = join(work, "lines.txt");
    await writeInput(file, SIZE_MIB);
    const longFile = join(work, "long-lines.txt");
    await writeInput(longFile, LONG_MIB);
    // The server warms up first (its hot paths compiled, its data file grown), as it is for the
    // session figures these are compared with: one append and one read of the same file on
    // another stream. The CLI processes themselves are always fresh: that is what a user runs.
    await run(["stream", "create", `svc://${basin}/warmup`]);
    await run(["append", `svc://${basin}/warmup`, "-i", file, "-q"]);
    await run(["read", `svc://${basin}/warmup`, "-s", "0", "-e"], { stdout: "devnull" });
    const records = (SIZE_MIB * MIB) / LINE;
    const bodyMiB = (records * LINE) / MIB;
    const frames = join(work, "frames.bin");
    const inputs = await writeFrames(frames, records);
    const { url, token } = lite;
    const times = { append: [], read: [], bareAppend: [], bareRead: [], appendLong: [], readLong: [] };
    const tailOf = async (u) => Number((await run(["check-tail", u, "--seq-only"])).stdout.trim());
    for (let i = 0; i < ROUNDS; i++) {
      const uri = `svc://${basin}/throughput-${i}`;
      await run(["stream", "create", uri]);
      times.append.push((await run(["append", uri, "-i", file, "-q"])).secs);
      times.read.push((await run(["read", uri, "-s", "0", "-e"], { stdout: "devnull" })).secs);
      await run(["stream", "create", `svc://${basin}/bare-${i}`]);
      times.bareAppend.push(
        (await run(["append", url, token, basin, `bare-${i}`, frames, String(inputs)], { script: BARE })).secs,
      );
      times.bareRead.push((await run(["read", url, token, basin, `bare-${i}`], { script: BARE })).secs);
      const long = `svc://${basin}/long-${i}`;
      await run(["stream", "create", long]);
      times.appendLong.push((await run(["append", long, "-i", longFile, "-q"])).secs);
      times.readLong.push((await run(["read", long, "-s", "0", "-e"], { stdout: "devnull" })).secs);
      for (const [u, n] of [
        [uri, records],
        [`svc://${basin}/bare-${i}`, records],
        [long, (LONG_MIB * MIB) / LINE],
      ]) {
        const tail = await tailOf(u);
        if (tail !== n) throw new Error(`expected ${n} records in ${u}, the tail is ${tail}`);
      }
      await run(["stream", "delete", long, "-y"]); // its 4x bytes need not stay in the data dir
    }
    const append = { secs: median(times.append) };
    const read = { secs: median(times.read) };
    const raw = await rawHttp2({ totalBytes: SIZE_MIB * MIB, chunkBytes: 64 * 1024 });
    const appendRate = bodyMiB / append.secs;
    const readRate = bodyMiB / read.secs;
    const steady = (long, short) => round((LONG_MIB - SIZE_MIB) / (median(long) - median(short)));
    console.log(
      JSON.stringify({
        bench: "cli-throughput",
        size_mib: SIZE_MIB,
        record_bytes: LINE,
        records,
        append_mib_s: round(appendRate),
        append_secs: round(append.secs),
        read_mib_s: round(readRate),
        read_secs: round(read.secs),
        bare_append_mib_s: round(bodyMiB / median(times.bareAppend)),
        bare_read_mib_s: round(bodyMiB / median(times.bareRead)),
        long_mib: LONG_MIB,
        steady_append_mib_s: steady(times.appendLong, times.append),
        steady_read_mib_s: steady(times.readLong, times.read),
        seconds: Object.fromEntries(
          Object.entries(times).map(([k, v]) => [k, v.map((x) => Math.round(x * 1000) / 1000)]),
        ),
        raw_http2_upload_mib_s: round(raw.uploadMiBs),
        raw_http2_download_mib_s: round(raw.downloadMiBs),
        append_vs_raw_upload: Math.round((appendRate / raw.uploadMiBs) * 1000) / 1000,
        read_vs_raw_download: Math.round((readRate / raw.downloadMiBs) * 1000) / 1000,
        note: "each figure is a fresh process, start included (medians of the rounds); bare_* are lib/bare-session.mjs; steady_* are (long - short) / (t_long - t_short); rates are of record bodies",
      }),
    );
  } finally {
    await lite.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
