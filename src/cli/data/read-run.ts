/**
 * The read loop shared by `read` and `tail`: events → printer → writer, with `--until-seq`,
 * `--idle-timeout`, checkpoints, split files, progress and stats. Ctrl-C stops after the batch
 * being written (output ends at a record boundary) and exits 130; a 416 for a start at the
 * tail means "nothing to read" (exit 0); a start beyond the tail is an error (exit 5).
 */
import type { StreamClient } from "../../client/index.js";
import { RangeNotSatisfiableError } from "../../errors.js";
import { meteredSize } from "../../format/record-input.js";
import type { JsonOptions } from "../../format/record-output.js";
import type { SequencedRecord } from "../../types.js";
import type { Context } from "../context.js";
import { attempt, ExitRequest } from "../failure.js";
import { writeCheckpoint } from "./checkpoint.js";
import { Interrupt } from "./interrupt.js";
import { ReadProgress } from "./progress.js";
import { readEvents, type SourceEvent, type SourcePlan } from "./read-source.js";
import { RecordPrinter, type PrinterOptions } from "./record-printer.js";
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
}

export interface ReadRunPlan extends SourcePlan {
  /** Exclusive end sequence number, enforced here. */
  untilSeq?: number;
  idleTimeoutMs?: number;
}

/** Reads and prints; `events` overrides the source (tail uses a pre-read window). */
export async function runRead(ctx: Context, stream: StreamClient, uri: string, plan: ReadRunPlan, sink: ReadSinkPlan, events?: (signal: AbortSignal) => AsyncGenerator<SourceEvent>): Promise<void> {
  const writer = await RecordWriter.open(sink.output, sink.appendOutput);
  if (sink.splitDir) prepareSplitDir(sink.splitDir);
  const printer = new RecordPrinter(sink.printer);
  const tty = process.stderr.isTTY === true && !ctx.out.quiet && !process.env.CI;
  const progress = new ReadProgress(sink.progress && tty);
  const interrupt = new Interrupt();
  const splitJson: JsonOptions = { ...sink.printer.json, base64: sink.printer.format === "json-base64" };
  let idle: NodeJS.Timeout | undefined;
  const armIdle = (): void => {
    if (plan.idleTimeoutMs === undefined) return;
    clearTimeout(idle);
    idle = setTimeout(() => interrupt.abort("idle"), plan.idleTimeoutMs);
  };
  const source = events ? events(interrupt.signal) : readEvents(stream, plan, interrupt.signal, (r) => ctx.out.verbose(`read session reconnecting: ${r}`));
  try {
    armIdle();
    await attempt("read", uri, async () => {
      try {
        for await (const ev of source) {
          if (ev.type === "heartbeat") {
            progress.seeTail(ev.tail);
            continue;
          }
          armIdle();
          let records: SequencedRecord[] = ev.records;
          let done = false;
          if (plan.untilSeq !== undefined && records.length > 0 && records[records.length - 1]!.seqNum >= plan.untilSeq) {
            records = records.filter((r) => r.seqNum < plan.untilSeq!);
            done = true;
          }
          if (records.length > 0) {
            await emit(records);
            progress.seeTail(ev.tail);
          }
          if (done || interrupt.signal.aborted) break;
        }
      } catch (e) {
        if (interrupt.signal.aborted) return;
        if (e instanceof RangeNotSatisfiableError && !beyondTail(plan, e)) return;
        throw e;
      }
    });
  } finally {
    clearTimeout(idle);
    interrupt.dispose();
    progress.stop();
  }
  await writer.close();
  if (sink.stats && !ctx.out.quiet) process.stderr.write(`${progress.summary()}\n`);
  if (interrupt.which) throw new ExitRequest(interrupt.exitCode);

  async function emit(records: SequencedRecord[]): Promise<void> {
    const bytes = records.reduce((n, r) => n + meteredSize(r), 0);
    const first = records[0]!.seqNum;
    const last = records[records.length - 1]!.seqNum;
    if (sink.splitDir) {
      for (const r of records) writeSplit(sink.splitDir, r, splitJson);
    } else {
      const { pieces } = printer.render(records);
      for (const p of pieces) {
        if ("out" in p) await writer.write(p.out);
        else if (!ctx.out.quiet) progress.above(p.err);
      }
    }
    progress.add(records.length, bytes, first, last);
    ctx.out.verbose(`⦿ ${bytes} bytes (${records.length} records in range ${first}..=${last})`);
    if (sink.checkpoint) writeCheckpoint(sink.checkpoint, last + 1);
  }
}

/** A 416 is an error only when an explicit sequence number lies beyond the tail. */
function beyondTail(plan: SourcePlan, e: RangeNotSatisfiableError): boolean {
  const s = plan.start as { seqNum?: number };
  return s.seqNum !== undefined && !plan.limits.clamp && s.seqNum > e.tail.seqNum;
}
