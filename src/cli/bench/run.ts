/**
 * One `svc bench` run (docs/design/cli.md, "Bench"), in four steps (`BenchRun.run`):
 * 1. a live reader follows the stream from where the run starts and verifies every record;
 * 2. writers append chained records (chain.ts) at the target rate, or flat out, each through
 *    its own appender, for the duration;
 * 3. the live reader must then see everything acknowledged, within 30 s;
 * 4. after the catch-up delay, a read from the start verifies everything again and measures
 *    read throughput.
 *
 * Ack latency is per input (taken by the appender to acked); end-to-end latency is per record
 * (the send time carried in the record to its delivery to the live reader). A broken chain
 * stops the run with `failure` set; an abort (Ctrl-C) stops it with `interrupted` and partial
 * figures.
 */

import type { SvcClient } from "../../client/client.js";
import type { StreamClient } from "../../client/stream.js";
import { sleep } from "../../sleep.js";
import type { AppendAck, AppendInput } from "../../types.js";
import { MAX_TIMER_MS } from "../../types.js";
import { ChainError, ChainVerifier, ChainWriter, newRunId } from "./chain.js";
import {
  type BenchLive,
  type BenchPlan,
  type BenchResult,
  defaultBatchRecords,
  MIB,
  type Throughput,
  throughput,
} from "./figures.js";
import { LatencyHistogram } from "./latency.js";

/** Unacknowledged bytes per writer. */
const INFLIGHT_BYTES = 8 * MIB;
/** How long the live reader may take to see everything acknowledged once the writers stop. */
const DRAIN_MS = 30_000;

/** `startSeq`: where this run's records start (the stream's tail when it began). */
export function runBench(
  client: SvcClient,
  plan: BenchPlan,
  startSeq: number,
  signal: AbortSignal,
  onLive: (l: BenchLive) => void,
): Promise<BenchResult> {
  return new BenchRun(client.basin(plan.basin).stream(plan.stream), plan, startSeq, signal, onLive).run();
}

class BenchRun {
  private readonly runId = newRunId();
  private readonly ackLatency = new LatencyHistogram();
  private readonly e2eLatency = new LatencyHistogram();
  /** The writers' end: duration over, a failure or an abort. */
  private readonly stop = new AbortController();
  private readonly readerStop = new AbortController();
  private readonly live: ChainVerifier;
  private readonly started = performance.now();
  private failure: string | null = null;
  private phase: BenchLive["phase"] = "write";
  private acked = 0;
  private ackedBytes = 0;
  private writeEnd = this.started;
  private writersDone = false;
  private liveBytes = 0;
  private liveEnd = this.started;
  private catchupAt = 0;

  constructor(
    private readonly sc: StreamClient,
    private readonly plan: BenchPlan,
    private readonly startSeq: number,
    private readonly signal: AbortSignal,
    private readonly onLive: (l: BenchLive) => void,
  ) {
    this.live = new ChainVerifier(this.runId, plan.writers);
  }

  async run(): Promise<BenchResult> {
    const onAbort = (): void => this.halt();
    this.signal.addEventListener("abort", onAbort);
    const ticker = setInterval(() => {
      if (this.phase !== "catchup") this.onLive(this.figures(this.live.count));
    }, 250);
    ticker.unref();
    try {
      const reader = this.followLive();
      await this.write();
      await this.drain(reader);
      const catchup = await this.catchup();
      return this.result(catchup);
    } finally {
      clearInterval(ticker);
      this.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Step 1: follows the stream, verifying each record and timing its trip. */
  private async followLive(): Promise<void> {
    try {
      for await (const ev of this.sc.read({ seqNum: this.startSeq }, {}, { signal: this.readerStop.signal })) {
        if (ev.type !== "batch") continue;
        const now = performance.now();
        for (const r of ev.records) {
          this.e2eLatency.add(now - this.live.check(r.body, r.seqNum).sentMs);
          this.liveBytes += r.body.length;
        }
        this.liveEnd = now;
        if (this.caughtUp()) break;
      }
    } catch (e) {
      if (e instanceof ChainError || !this.readerStop.signal.aborted) this.failWith(e);
    }
  }

  /** Step 2: every writer until the duration is over (or a failure or an abort). */
  private async write(): Promise<void> {
    const timer = setTimeout(() => this.stop.abort(), Math.min(MAX_TIMER_MS, this.plan.durationMs));
    try {
      await Promise.all(
        Array.from({ length: this.plan.writers }, (_, w) => this.writer(w).catch((e: unknown) => this.failWith(e))),
      );
    } finally {
      clearTimeout(timer);
    }
    this.writeEnd = performance.now();
    this.writersDone = true;
    this.phase = "drain";
  }

  /** One writer: chained records at its share of the rate, through its own appender. */
  private async writer(w: number): Promise<void> {
    const chain = new ChainWriter(this.runId, w, this.plan.recordSize);
    const appender = await this.sc.appender({ maxInflightBytes: INFLIGHT_BYTES });
    const due = this.pacer(chain);
    try {
      while (!this.stop.signal.aborted) {
        const n = await due();
        if (n === 0) continue;
        await appender.room(n * (this.plan.recordSize + 8)); // records are stamped when they go out
        if (this.stop.signal.aborted) break;
        const sent = performance.now();
        const input: AppendInput = {
          records: Array.from({ length: n }, () => ({ headers: [], body: chain.next(sent) })),
        };
        const ticket = await appender.submit(input);
        void ticket.ack().then(
          (a) => this.onAck(a, n, sent),
          (e: unknown) => this.failWith(e),
        );
      }
      await appender.close();
    } catch (e) {
      appender.abort();
      throw e;
    }
  }

  /** How many records the writer of `chain` may send now: a batch flat out, else what the rate allows (0 after a short wait). */
  private pacer(chain: ChainWriter): () => Promise<number> {
    const perBatch = this.plan.batchRecords ?? defaultBatchRecords(this.plan.recordSize);
    if (this.plan.targetMiBps === undefined) return () => Promise.resolve(perBatch);
    const bytesPerMs = (this.plan.targetMiBps * MIB) / this.plan.writers / 1000;
    const t0 = performance.now();
    return async () => {
      const due = Math.floor(((performance.now() - t0) * bytesPerMs) / this.plan.recordSize) - chain.written;
      if (due > 0) return Math.min(perBatch, due);
      await sleep(Math.min(5, this.plan.recordSize / bytesPerMs), this.stop.signal);
      return 0;
    };
  }

  private onAck(a: AppendAck, records: number, sent: number): void {
    this.ackLatency.add(performance.now() - sent);
    this.acked += a.end.seqNum - a.start.seqNum;
    this.ackedBytes += records * this.plan.recordSize;
  }

  /** Step 3: everything acknowledged must reach the live reader, in a bounded time. */
  private async drain(reader: Promise<void>): Promise<void> {
    if (this.caughtUp() || this.failure !== null || this.signal.aborted) this.readerStop.abort();
    else {
      const t = setTimeout(
        () =>
          this.failWith(
            new ChainError(`the live reader saw ${this.live.count} of ${this.acked} acknowledged records within 30 s`),
          ),
        DRAIN_MS,
      );
      await reader;
      clearTimeout(t);
    }
    await reader;
    if (this.failure === null && !this.signal.aborted && this.live.count !== this.acked)
      this.failWith(new ChainError(`the live reader saw ${this.live.count} records, ${this.acked} were acknowledged`));
  }

  /** Step 4: after the announced delay, everything read again from the start. */
  private async catchup(): Promise<Throughput | null> {
    if (!this.plan.catchup || this.failure !== null || this.signal.aborted) return null;
    this.phase = "catchup-wait";
    this.catchupAt = performance.now() + this.plan.catchupDelayMs;
    this.onLive(this.figures(this.live.count));
    await sleep(this.plan.catchupDelayMs, this.signal);
    if (this.signal.aborted) return null;
    this.phase = "catchup";
    return this.catchupRead().catch((e: unknown) => {
      this.failWith(e);
      return null;
    });
  }

  private async catchupRead(): Promise<Throughput> {
    const verifier = new ChainVerifier(this.runId, this.plan.writers);
    let bytes = 0;
    const t0 = performance.now();
    for await (const ev of this.sc.read({ seqNum: this.startSeq }, { wait: 0 }, { signal: this.signal })) {
      if (ev.type !== "batch") continue;
      for (const r of ev.records) {
        verifier.check(r.body, r.seqNum);
        bytes += r.body.length;
      }
      this.onLive(this.figures(verifier.count));
    }
    const ms = performance.now() - t0;
    if (!this.signal.aborted && verifier.count !== this.acked)
      throw new ChainError(`the catch-up read saw ${verifier.count} records, ${this.acked} were acknowledged`);
    return throughput(verifier.count, bytes, ms);
  }

  private caughtUp(): boolean {
    return this.writersDone && this.live.count >= this.acked;
  }

  private failWith(e: unknown): void {
    this.failure ??= e instanceof Error ? e.message : String(e);
    this.halt();
  }

  private halt(): void {
    this.stop.abort();
    this.readerStop.abort();
  }

  private figures(read: number): BenchLive {
    const now = performance.now();
    const l: BenchLive = {
      phase: this.phase,
      elapsedMs: now - this.started,
      acked: this.acked,
      ackedBytes: this.ackedBytes,
      read,
    };
    if (this.phase === "catchup-wait") l.catchupInMs = Math.max(0, this.catchupAt - now);
    return l;
  }

  private result(catchup: Throughput | null): BenchResult {
    return {
      write: throughput(this.acked, this.ackedBytes, this.writeEnd - this.started),
      ack_latency: this.ackLatency.summary(),
      live_read: throughput(this.live.count, this.liveBytes, this.liveEnd - this.started),
      e2e_latency: this.e2eLatency.summary(),
      catchup,
      verified: this.failure === null && !this.signal.aborted,
      failure: this.failure,
      interrupted: this.signal.aborted,
    };
  }
}
