/**
 * The read loop shared by `read` and `tail`: events → printer → writer, with `--until-seq`,
 * `--idle-timeout`, checkpoints, split files, progress and stats. Ctrl-C stops after the batch
 * being written (output ends at a record boundary) and exits 130; a 416 for a start at the
 * tail means "nothing to read" (exit 0); a start beyond the tail is an error (exit 5).
 */

import type { ReadTransport, StreamClient } from "../../client/stream.js";
import { RangeNotSatisfiableError } from "../../errors.js";
import type { JsonOptions } from "../../format/record-output.js";
import { seqRange } from "../../format/seq-range.js";
import { meteredSize } from "../../rules/records.js";
import type { ReadEvent } from "../../types.js";
import { MAX_TIMER_MS, type ReadLimits, type ReadStart, type SequencedRecord } from "../../types.js";
import { plural } from "../append/append-tally.js";
import type { Context } from "../context.js";
import { attempt, ExitRequest } from "../failure.js";
import { Interrupt } from "../interrupt.js";
import type { Output } from "../output.js";
import { progressMode, ReadProgress } from "../progress.js";
import { writeCheckpoint } from "./checkpoint.js";
import { gapError, SeqContinuity, warnGaps } from "./gaps.js";
import { ChunkJoiner } from "./join.js";
import { type PrinterOptions, RecordPrinter } from "./record-printer.js";
import { RecordWriter } from "./record-writer.js";
import { prepareSplitDir, writeSplit } from "./split-dir.js";

export interface ReadSinkPlan {
  output?: string;
  appendOutput: boolean;
  splitDir?: string;
  printer: PrinterOptions;
  progress: boolean;
  stats: boolean;
  checkpoint?: string;
  /** `--fail-on-gap`: records trimmed or expired before they were read end the read (exit 5) instead of a warning. */
  failOnGap?: boolean;
  /** `--join`: the records are the pieces of files (`svc append --chunk`), written put back together (join.ts). */
  join?: boolean;
}

export interface ReadRunPlan {
  start: ReadStart;
  limits: ReadLimits;
  /** Keep waiting at the tail (a unary read long-polls; a session follows per its limits and wait). */
  follow: boolean;
  transport: ReadTransport;
  /** Exclusive end sequence number, enforced here. */
  untilSeq?: number;
  idleTimeoutMs?: number;
  /** The sequence number the first record should have (a checkpoint, `-s N`): a later one means records were skipped (gaps.ts). */
  expectFrom?: number;
}

/** What a consumer's read (consumer/read.ts) needs of the loop. */
export interface ReadHooks {
  /** After each batch is written out and handed to the OS (stdout, -o FILE, --split-dir): the next sequence number. */
  written?: (next: number) => void;
  /** Ends the read, quietly (the caller says why), when aborted. */
  stop?: AbortSignal;
}

/** Reads and prints; `events` overrides the source (tail uses a pre-read window). */
export async function runRead(
  ctx: Context,
  stream: StreamClient,
  uri: string,
  plan: ReadRunPlan,
  sink: ReadSinkPlan,
  events?: (signal: AbortSignal) => AsyncGenerator<ReadEvent>,
  hooks: ReadHooks = {},
): Promise<void> {
  const writer = await RecordWriter.open(sink.output, sink.appendOutput);
  if (sink.splitDir) prepareSplitDir(sink.splitDir);
  const progress = new ReadProgress(ctx.out, progressMode(ctx.out, sink.progress, "off"));
  const emitter = new BatchEmitter(ctx.out, writer, sink, progress, uri, plan.expectFrom, hooks.written);
  const interrupt = new Interrupt();
  const stop = (): void => interrupt.abort("stopped");
  if (hooks.stop?.aborted) stop();
  hooks.stop?.addEventListener("abort", stop, { once: true });
  const idle = new IdleTimer(plan.idleTimeoutMs, () => interrupt.abort("idle"));
  const onReconnect = (r: string): void => ctx.out.verbose(`read session reconnecting: ${r}`);
  const source = events
    ? events(interrupt.signal)
    : stream.read(plan.start, plan.limits, {
        transport: plan.transport,
        follow: plan.follow,
        signal: interrupt.signal,
        onReconnect,
      });
  try {
    await attempt("read", uri, async () => {
      try {
        await consume(source, plan, emitter, idle, interrupt.signal);
      } catch (e) {
        if (!interrupt.signal.aborted && !(e instanceof RangeNotSatisfiableError && !beyondTail(plan, e))) throw e;
      }
      // The read ended (not by a signal): a file it was putting together (--join) must be whole.
      if (interrupt.which === undefined) emitter.finish();
    });
  } catch (e) {
    emitter.reportChanges();
    throw e;
  } finally {
    hooks.stop?.removeEventListener("abort", stop);
    idle.stop();
    interrupt.dispose();
    progress.stop();
  }
  await writer.close();
  emitter.reportChanges();
  if (sink.stats) ctx.out.info(progress.summary());
  if (interrupt.which) throw new ExitRequest(interrupt.exitCode);
}

async function consume(
  source: AsyncGenerator<ReadEvent>,
  plan: ReadRunPlan,
  emitter: BatchEmitter,
  idle: IdleTimer,
  signal: AbortSignal,
): Promise<void> {
  idle.arm();
  for await (const ev of source) {
    if (ev.type === "heartbeat") {
      emitter.progress.seeTail(ev.tail);
      continue;
    }
    idle.arm();
    const { records, done } = cutAtSeq(ev.records, plan.untilSeq);
    if (records.length > 0) {
      await emitter.emit(records);
      emitter.progress.seeTail(ev.tail);
    }
    if (done || signal.aborted) break;
  }
}

/** The records before `untilSeq` (exclusive); `done` once the end has been reached. */
export function cutAtSeq(
  records: SequencedRecord[],
  untilSeq: number | undefined,
): { records: SequencedRecord[]; done: boolean } {
  if (untilSeq === undefined || records.length === 0 || records[records.length - 1]!.seqNum < untilSeq)
    return { records, done: false };
  return { records: records.filter((r) => r.seqNum < untilSeq), done: true };
}

/** `--idle-timeout`: fires `onIdle` when no records came for the given time. */
export class IdleTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number | undefined,
    private readonly onIdle: () => void,
  ) {}

  arm(): void {
    if (this.ms === undefined) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onIdle, Math.min(MAX_TIMER_MS, this.ms));
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** One batch out: to the writer (or split files), command lines to stderr, progress, checkpoint. */
export class BatchEmitter {
  private readonly printer: RecordPrinter;
  private readonly splitJson: JsonOptions;
  private readonly continuity: SeqContinuity;
  private readonly joiner: ChunkJoiner | undefined;
  private reported = false;

  constructor(
    private readonly out: Output,
    private readonly writer: RecordWriter,
    private readonly sink: ReadSinkPlan,
    readonly progress: ReadProgress,
    private readonly uri: string,
    expectFrom: number | undefined,
    private readonly written?: (next: number) => void,
  ) {
    this.continuity = new SeqContinuity(expectFrom);
    if (sink.join) this.joiner = new ChunkJoiner(uri);
    this.printer = new RecordPrinter({ ...sink.printer, terminal: !writer.isFile && out.dataOnTerminal });
    this.splitJson = { ...sink.printer.json, base64: sink.printer.format === "json-base64" };
  }

  /**
   * Says once, on stderr, how many records were written with U+FFFD in place of bytes that are
   * not UTF-8 (json, a template's {headers}): a record's bytes never change silently.
   */
  reportChanges(): void {
    const n = this.printer.changed;
    if (n === 0 || this.reported) return;
    this.reported = true;
    const what =
      this.sink.printer.format === "json" && this.sink.printer.template === undefined
        ? "--format json"
        : "the template's {headers}";
    this.out.warn(
      `${plural(n, "record")} held bytes that are not UTF-8, which ${what} cannot carry: ${n === 1 ? "it was" : "they were"} written with U+FFFD in their place. --format json-base64 carries any bytes exactly (--invalid-utf8 error refuses, replace accepts the change)`,
    );
  }

  /** The read ended: with --join, a file left in the middle is an error (join.ts). */
  finish(): void {
    this.joiner?.finish();
  }

  /** Writes a batch; records skipped before or inside it are reported first (gaps.ts). */
  async emit(records: SequencedRecord[]): Promise<void> {
    const gaps = this.continuity.check(records);
    if (gaps.length > 0 && this.sink.failOnGap) {
      // What came before the first gap is written; then the read fails (exit 5).
      const before = records.filter((r) => r.seqNum < gaps[0]!.from);
      if (before.length > 0) await this.write(before);
      throw gapError(gaps[0]!, this.uri, this.sink.checkpoint);
    }
    warnGaps(gaps, this.uri, (m) => this.out.warn(m));
    await this.write(records);
  }

  private async write(records: SequencedRecord[]): Promise<void> {
    const bytes = records.reduce((n, r) => n + meteredSize(r), 0);
    const first = records[0]!.seqNum;
    const last = records[records.length - 1]!.seqNum;
    if (this.joiner) {
      const { pieces, error } = this.joiner.take(records);
      for (const p of pieces) {
        if (!this.writer.isFile) this.out.beforeData();
        await this.writer.write(p);
      }
      if (error) throw error;
    } else if (this.sink.splitDir) {
      for (const r of records) {
        const choice = this.printer.choose(r);
        if (choice.err !== undefined) this.out.info(choice.err);
        if (!choice.keep) continue;
        this.printer.noteChanges(r, "body");
        writeSplit(this.sink.splitDir, r, this.splitJson);
      }
    } else {
      for (const p of this.printer.render(records).pieces) {
        if ("err" in p) this.out.info(p.err);
        else {
          if (!this.writer.isFile) this.out.beforeData();
          await this.writer.write(p.out);
        }
      }
    }
    this.progress.add(records.length, bytes, first, last);
    this.out.verbose(`⦿ ${plural(records.length, "record")}, ${seqRange(first, last)}, ${bytes} B metered`);
    if (this.sink.checkpoint) writeCheckpoint(this.sink.checkpoint, last + 1);
    if (this.written && (await this.writer.flushed())) this.written(last + 1);
  }
}

/** A 416 is an error only when an explicit sequence number lies beyond the tail. */
function beyondTail(plan: ReadRunPlan, e: RangeNotSatisfiableError): boolean {
  const s = plan.start as { seqNum?: number };
  return s.seqNum !== undefined && !plan.limits.clamp && s.seqNum > e.tail.seqNum;
}
