/**
 * `svc bench <basin>` (docs/design/cli.md, "Bench"): measures append and read throughput and latency on a
 * temporary stream and verifies every record with a hash chain (bench/chain.ts).
 *
 * Results go to stdout (a table, or one JSON document with --json); live figures go to
 * stderr on a TTY. Exit 8 when verification fails; 130 on Ctrl-C, after the partial results.
 * The temporary stream is deleted afterwards unless --keep-stream; a stream given with
 * --stream is never deleted.
 */
import { randomBytes } from "node:crypto";
import { Command } from "commander";
import { flagAction } from "../action.js";
import { CHAIN_HEADER_BYTES } from "../bench/chain.js";
import { type BenchLive, type BenchPlan, type BenchResult, defaultBatchRecords } from "../bench/figures.js";
import type { LatencySummary } from "../bench/latency.js";
import { runBench } from "../bench/run.js";
import { EXIT } from "../exit-codes.js";
import { attempt, ExitRequest, usageError } from "../failure.js";
import { bool, type FlagValues, flagList, text, valueFlag } from "../flags/declare.js";
import { count, millis, size } from "../flags/kinds.js";
import { parseCount } from "../flags/numbers.js";
import { examples } from "../help.js";
import { Interrupt } from "../interrupt.js";
import type { Output } from "../output.js";
import { humanBytes } from "../progress.js";
import { formatUri, parseBasinArg, parseStreamUri } from "../uri.js";

const MAX_BODY = 1024 * 1024 - 8;

const FLAGS = flagList(
  count("--writers <n>", "concurrent append sessions", { max: 64, default: "1" }),
  valueFlag("--target-mibps <n>", "total write rate in MiB/s (default 1)", (raw, name) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0)
      throw usageError(`${name} must be a positive number (got ${JSON.stringify(raw)})`);
    return n;
  }),
  bool("--max", "write as fast as acknowledgements allow"),
  size("--record-size <size>", `record body size, ${CHAIN_HEADER_BYTES} B to 1 MiB`, {
    max: MAX_BODY,
    default: "8KiB",
  }),
  // Its bound depends on --record-size: checked with it, in planOf.
  text("--batch-records <n>", "records per append input (default: up to 1000 / 1 MiB)"),
  millis("--duration <dur>", "how long to write", { default: "60s" }),
  millis(
    "--catchup-delay <dur>",
    "wait between writing and the catch-up read (announced, and counted down on a terminal)",
    { default: "20s" },
  ),
  bool("--no-catchup", "skip the catch-up read"),
  bool("--keep-stream", "keep the temporary stream"),
  text("--stream <uri>", "use this existing stream (never deleted)"),
);

type Flags = FlagValues<typeof FLAGS>;

export function benchCommand(): Command {
  const cmd = new Command("bench")
    .description("Benchmark a basin: write, read live and catch up on a temporary stream, verifying every record")
    .argument("<basin>", "basin to create the temporary stream in");
  flagAction(cmd, FLAGS, async (ctx, [arg], f) => {
    const basin = parseBasinArg(arg!);
    const plan = planOf(basin, f);
    const client = await ctx.client();
    const streams = client.basin(basin).streams;
    const given = f.stream !== undefined;
    if (!given) await attempt("create stream", formatUri(basin, plan.stream), () => streams.create(plan.stream));
    const uri = formatUri(basin, plan.stream);
    const interrupt = new Interrupt();
    let result: BenchResult;
    try {
      const tail = await attempt("check tail of", uri, () => client.basin(basin).stream(plan.stream).checkTail());
      ctx.out.info(
        `bench ${uri}: ${plan.writers} writer(s), ${plan.targetMiBps === undefined ? "max rate" : `${plan.targetMiBps} MiB/s`}, ${humanBytes(plan.recordSize)} records, ${plan.durationMs / 1000} s`,
      );
      if (plan.catchup) ctx.out.info(catchupPlan(plan));
      result = await runBench(client, plan, tail.seqNum, interrupt.signal, liveReporter(ctx.out, plan));
      ctx.out.clearLive();
    } finally {
      interrupt.dispose();
      if (!given && !f.keepStream) {
        await attempt("delete stream", uri, () => streams.delete(plan.stream)).catch((e: unknown) =>
          ctx.out.warn(`could not delete ${uri}: ${(e as Error).message}`),
        );
      } else if (!given) ctx.out.info(`kept ${uri}`);
    }
    const doc = {
      stream: uri,
      writers: plan.writers,
      record_size: plan.recordSize,
      target_mibps: plan.targetMiBps ?? null,
      duration_s: plan.durationMs / 1000,
      ...result,
    };
    if (ctx.flags.json) await ctx.out.jsonDoc(doc);
    else await ctx.out.write(report(result));
    if (result.interrupted) throw new ExitRequest(interrupt.exitCode);
    if (result.failure !== null) {
      process.stderr.write(`error: verification failed: ${result.failure}\n`);
      throw new ExitRequest(EXIT.verification);
    }
  });
  return examples(cmd, [
    "svc bench my-basin-01 --target-mibps 10 --duration 30s",
    "svc bench my-basin-01 --max --writers 4 --record-size 1KiB --duration 10s --catchup-delay 0s --json",
  ]);
}

function planOf(basin: string, f: Flags): BenchPlan {
  const writers = f.writers;
  if (writers < 1) throw usageError("--writers must be at least 1");
  if (f.max && f.targetMibps !== undefined) throw usageError("use either --max or --target-mibps");
  const targetMiBps = f.max ? undefined : (f.targetMibps ?? 1);
  const recordSize = f.recordSize;
  if (recordSize < CHAIN_HEADER_BYTES)
    throw usageError(`--record-size must be at least ${CHAIN_HEADER_BYTES} bytes (the integrity header)`);
  const batchRecords =
    f.batchRecords === undefined
      ? undefined
      : parseCount(f.batchRecords, "--batch-records", defaultBatchRecords(recordSize));
  if (batchRecords === 0) throw usageError("--batch-records must be at least 1");
  let stream = `bench-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
  if (f.stream !== undefined) {
    const u = parseStreamUri(f.stream);
    if (u.basin !== basin) throw usageError(`--stream ${f.stream} is not in basin ${basin}`);
    stream = u.stream;
  }
  return {
    basin,
    stream,
    writers,
    targetMiBps,
    recordSize,
    batchRecords,
    durationMs: f.duration,
    catchupDelayMs: f.catchupDelay,
    catchup: f.catchup,
  };
}

/**
 * Live figures: a line redrawn on a terminal, counting down the wait before the catch-up read;
 * in logs, one line when that wait starts (so a silent pause is never unexplained).
 */
function liveReporter(out: Output, plan: BenchPlan): (l: BenchLive) => void {
  let waitAnnounced = false;
  return (l) => {
    if (l.phase === "catchup-wait" && !waitAnnounced) {
      waitAnnounced = true;
      if (!out.liveWanted)
        out.info(`writing done; waiting ${plan.catchupDelayMs / 1000} s before the catch-up read (--catchup-delay)`);
    }
    if (out.liveWanted) out.live(liveText(l));
  };
}

function liveText(l: BenchLive): string {
  if (l.phase === "catchup-wait") {
    return `waiting for the catch-up read: ${Math.ceil((l.catchupInMs ?? 0) / 1000)} s left (--catchup-delay) · acked ${l.acked} · read live ${l.read}`;
  }
  const secs = l.elapsedMs / 1000;
  const rate = secs > 0 ? l.ackedBytes / secs : 0;
  return `${l.phase} ${secs.toFixed(1)} s · acked ${l.acked} (${humanBytes(rate)}/s) · read ${l.read}`;
}

function catchupPlan(plan: BenchPlan): string {
  const read = "reads everything back from the start (the catch-up read; --no-catchup skips it)";
  if (plan.catchupDelayMs === 0) return `then ${read}`;
  return `then waits ${plan.catchupDelayMs / 1000} s (--catchup-delay) and ${read}: at least ${(plan.durationMs + plan.catchupDelayMs) / 1000} s in all`;
}

function latencyLine(name: string, s: LatencySummary): string {
  if (s.count === 0) return `${name}: no samples\n`;
  return `${name}: min ${s.min_ms} · p50 ${s.p50_ms} · p90 ${s.p90_ms} · p99 ${s.p99_ms} · p99.9 ${s.p999_ms} · max ${s.max_ms} ms (${s.count} samples)\n`;
}

function report(r: BenchResult): string {
  const t = (
    name: string,
    x: { records: number; bytes: number; mib_s: number; records_per_s: number; seconds: number },
  ): string =>
    `${name}: ${x.records} records, ${humanBytes(x.bytes)} in ${x.seconds} s: ${x.mib_s} MiB/s, ${x.records_per_s} records/s\n`;
  let out =
    t("write", r.write) +
    latencyLine("ack latency", r.ack_latency) +
    t("live read", r.live_read) +
    latencyLine("end-to-end latency", r.e2e_latency);
  if (r.catchup) out += t("catch-up read", r.catchup);
  out += r.interrupted
    ? "interrupted: partial results\n"
    : r.verified
      ? "verified: every record arrived once, in order, intact\n"
      : `verification FAILED: ${r.failure}\n`;
  return out;
}
