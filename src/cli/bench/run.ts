/**
 * One `svc bench` run (cli.md §4.11): writers append chained records to one stream at a
 * target rate (or flat out) over append sessions while a live reader follows the stream and
 * verifies every record; after the duration and a delay, a catch-up read from the start
 * verifies everything again and measures read throughput.
 *
 * Ack latency is per input (submit to ack); end-to-end latency is per record (the send time
 * carried in the record to its delivery to the live reader). A broken chain stops the run
 * with `failure` set; an abort (Ctrl-C) stops it with `interrupted` and partial figures.
 */
import type { SvcClient } from "../../client/client.js";
import { MAX_TIMER_MS, type AppendAck, type AppendInput } from "../../types.js";
import { ChainError, ChainVerifier, ChainWriter, newRunId } from "./chain.js";
import { LatencyHistogram, type LatencySummary } from "./latency.js";

const MIB = 1024 * 1024;
/** Unacknowledged bytes per writer: more than svc append keeps by default (5 MiB, `--max-inflight-bytes`). */
const INFLIGHT_BYTES = 8 * MIB;
/** A batch stays within 1000 records and 1 MiB metered (8 bytes of overhead per record). */
const BATCH_BYTES = MIB;

export interface BenchPlan {
  basin: string;
  stream: string;
  writers: number;
  /** MiB/s across all writers; undefined = as fast as acks allow (--max). */
  targetMiBps: number | undefined;
  recordSize: number;
  batchRecords: number | undefined;
  durationMs: number;
  catchupDelayMs: number;
  catchup: boolean;
}

export interface Throughput {
  records: number;
  bytes: number;
  seconds: number;
  mib_s: number;
  records_per_s: number;
}

export interface BenchResult {
  write: Throughput;
  ack_latency: LatencySummary;
  live_read: Throughput;
  e2e_latency: LatencySummary;
  catchup: Throughput | null;
  verified: boolean;
  failure: string | null;
  interrupted: boolean;
}

/** Live figures for a progress line. */
export interface BenchLive {
  phase: "write" | "drain" | "catchup-wait" | "catchup";
  elapsedMs: number;
  /** In `catchup-wait`: the time left before the catch-up read starts. */
  catchupInMs?: number;
  acked: number;
  ackedBytes: number;
  read: number;
}

function throughput(records: number, bytes: number, ms: number): Throughput {
  const seconds = Math.max(ms, 1) / 1000;
  return { records, bytes, seconds: Math.round(seconds * 1000) / 1000, mib_s: Math.round((bytes / MIB / seconds) * 100) / 100, records_per_s: Math.round(records / seconds) };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, Math.min(MAX_TIMER_MS, ms));
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

export function defaultBatchRecords(recordSize: number): number {
  return Math.max(1, Math.min(1000, Math.floor(BATCH_BYTES / (recordSize + 8))));
}

/** `startSeq`: where this run's records start (the stream's tail when it began). */
export async function runBench(client: SvcClient, plan: BenchPlan, startSeq: number, signal: AbortSignal, onLive: (l: BenchLive) => void): Promise<BenchResult> {
  const sc = client.basin(plan.basin).stream(plan.stream);
  const runId = newRunId();
  const ack = new LatencyHistogram();
  const e2e = new LatencyHistogram();
  const stop = new AbortController(); // the writers' end: duration over, a failure or an abort
  const readerStop = new AbortController();
  const onAbort = (): void => { stop.abort(); readerStop.abort(); };
  signal.addEventListener("abort", onAbort);
  let failure: string | null = null;
  const failWith = (e: unknown): void => {
    failure ??= e instanceof Error ? e.message : String(e);
    stop.abort();
    readerStop.abort();
  };
  const started = performance.now();
  let acked = 0;
  let ackedBytes = 0;
  let writeEnd = started;
  let phase: BenchLive["phase"] = "write";

  // The live reader.
  const live = new ChainVerifier(runId, plan.writers);
  let liveBytes = 0;
  let liveEnd = started;
  let writersDone = false;
  const caughtUp = (): boolean => writersDone && live.count >= acked;
  const reader = (async () => {
    try {
      for await (const ev of sc.readSession({ seqNum: startSeq }, {}, { signal: readerStop.signal })) {
        if (ev.type !== "batch") continue;
        const now = performance.now();
        for (const r of ev.records) {
          const v = live.check(r.body, r.seqNum);
          e2e.add(now - v.sentMs);
          liveBytes += r.body.length;
        }
        liveEnd = now;
        if (caughtUp()) break;
      }
    } catch (e) {
      if (e instanceof ChainError || !readerStop.signal.aborted) failWith(e);
    }
  })();

  let catchupAt = 0;
  const liveFigures = (read: number): BenchLive => {
    const now = performance.now();
    const l: BenchLive = { phase, elapsedMs: now - started, acked, ackedBytes, read };
    if (phase === "catchup-wait") l.catchupInMs = Math.max(0, catchupAt - now);
    return l;
  };
  const ticker = setInterval(() => { if (phase !== "catchup") onLive(liveFigures(live.count)); }, 250);
  ticker.unref();
  const timer = setTimeout(() => stop.abort(), Math.min(MAX_TIMER_MS, plan.durationMs));
  try {
    const writers = Array.from({ length: plan.writers }, (_, w) => writeLoop(w).catch(failWith));
    await Promise.all(writers);
    writeEnd = performance.now();
    writersDone = true;
    phase = "drain";
    if (caughtUp() || failure !== null || signal.aborted) readerStop.abort();
    else {
      // Everything acked must reach the live reader; give it a bounded time.
      const t = setTimeout(() => failWith(new ChainError(`the live reader saw ${live.count} of ${acked} acknowledged records within 30 s`)), 30_000);
      await reader;
      clearTimeout(t);
    }
    await reader;
    if (failure === null && !signal.aborted && live.count !== acked) failWith(new ChainError(`the live reader saw ${live.count} records, ${acked} were acknowledged`));
  } catch (e) {
    clearInterval(ticker);
    throw e;
  } finally {
    clearTimeout(timer);
  }

  // The wait before the catch-up read is announced (phase `catchup-wait`, with the time left).
  let catchup: Throughput | null = null;
  try {
    if (plan.catchup && failure === null && !signal.aborted) {
      phase = "catchup-wait";
      catchupAt = performance.now() + plan.catchupDelayMs;
      onLive(liveFigures(live.count));
      await sleep(plan.catchupDelayMs, signal);
      if (!signal.aborted) {
        phase = "catchup";
        catchup = await catchupRead().catch((e: unknown) => { failWith(e); return null; });
      }
    }
  } finally {
    clearInterval(ticker);
  }
  signal.removeEventListener("abort", onAbort);
  return {
    write: throughput(acked, ackedBytes, writeEnd - started),
    ack_latency: ack.summary(),
    live_read: throughput(live.count, liveBytes, liveEnd - started),
    e2e_latency: e2e.summary(),
    catchup,
    verified: failure === null && !signal.aborted,
    failure,
    interrupted: signal.aborted,
  };

  async function writeLoop(w: number): Promise<void> {
    const chain = new ChainWriter(runId, w, plan.recordSize);
    const session = await sc.appendSession({ maxInflightBytes: INFLIGHT_BYTES });
    const bytesPerMs = plan.targetMiBps === undefined ? undefined : (plan.targetMiBps * MIB) / plan.writers / 1000;
    const perBatch = plan.batchRecords ?? defaultBatchRecords(plan.recordSize);
    const pending: Promise<unknown>[] = [];
    const t0 = performance.now();
    try {
      while (!stop.signal.aborted) {
        let n = perBatch;
        if (bytesPerMs !== undefined) {
          const due = Math.floor(((performance.now() - t0) * bytesPerMs) / plan.recordSize) - chain.written;
          if (due <= 0) {
            await sleep(Math.min(5, plan.recordSize / bytesPerMs), stop.signal);
            continue;
          }
          n = Math.min(n, due);
        }
        while (pending.length > 0 && session.pendingBytes >= INFLIGHT_BYTES) await pending.shift();
        if (stop.signal.aborted) break;
        const sent = performance.now();
        const input: AppendInput = { records: Array.from({ length: n }, () => ({ headers: [], body: chain.next(sent) })) };
        const p = session.submit(input).then((a: AppendAck) => {
          ack.add(performance.now() - sent);
          acked += a.end.seqNum - a.start.seqNum;
          ackedBytes += n * plan.recordSize;
        });
        p.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
        pending.push(p);
        if (pending.length > 1 && bytesPerMs === undefined) await Promise.race([pending[0], new Promise((r) => setImmediate(r))]);
      }
      await Promise.all(pending);
      await session.close();
    } catch (e) {
      session.abort();
      throw e;
    }
  }

  async function catchupRead(): Promise<Throughput> {
    const verifier = new ChainVerifier(runId, plan.writers);
    let bytes = 0;
    const t0 = performance.now();
    for await (const ev of sc.readSession({ seqNum: startSeq }, { wait: 0 }, { signal })) {
      if (ev.type !== "batch") continue;
      for (const r of ev.records) {
        verifier.check(r.body, r.seqNum);
        bytes += r.body.length;
      }
      onLive(liveFigures(verifier.count));
    }
    const ms = performance.now() - t0;
    if (!signal.aborted && verifier.count !== acked) throw new ChainError(`the catch-up read saw ${verifier.count} records, ${acked} were acknowledged`);
    return throughput(verifier.count, bytes, ms);
  }
}
