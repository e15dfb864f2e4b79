/**
 * The append pipeline (cli.md §1.6, §4.6; reliability.md §2.f): input → batches → sender, with
 * per-batch status or NDJSON acks, a summary, and careful endings:
 *
 * - malformed input: the batch holding it is never sent; earlier acks are awaited; exit 7;
 * - a condition failure (fencing token, match seq num): exit 5 with the expected value;
 * - an outcome unknown (connection lost, ack timeout): exit 75, saying what was acked and how
 *   many records are in doubt; nothing is ever re-sent;
 * - Ctrl-C: stop reading input, send what was already read, wait (≤ 5 s) for in-flight acks,
 *   report the last acked position, exit 130; a second Ctrl-C ends the process at once.
 */
import type { StreamClient } from "../../client/index.js";
import { SvcError } from "../../errors.js";
import { ackStatusLine, ackToJson } from "../../format/record-ack.js";
import type { CommandRecord } from "../../format/record-command.js";
import type { AppendAck, AppendInput } from "../../types.js";
import type { Context } from "../context.js";
import { ExitRequest, OperationError } from "../failure.js";
import { batches, type Batch, type BatchLimits } from "./batcher.js";
import { conditionHint, resolveMatch, type Conditions } from "./conditions.js";
import { inputError, inputRecords, type InputOptions } from "./input-records.js";
import { Interrupt } from "./interrupt.js";
import { AppendTally } from "./append-tally.js";
import { openSender, type Sender, type SenderOptions } from "./append-sender.js";

export interface AppendPlan {
  input: Omit<InputOptions, "onBad">;
  onError: "fail" | "skip";
  batch: BatchLimits;
  conds: Conditions;
  sender: SenderOptions;
  acks: "text" | "ndjson" | "none";
  /** Command records in the input: dropped (default) or fences appended; trims never are. */
  commands: "skip" | "replay";
  dryRun: boolean;
  atomic: boolean;
  rate?: number;
  rateBytes?: number;
}

const DRAIN_MS = 5_000;

export async function runAppend(ctx: Context, stream: StreamClient, uri: string, plan: AppendPlan): Promise<void> {
  const interrupt = new Interrupt(() => {
    if (!ctx.out.quiet) process.stderr.write("interrupted: sending what was read and waiting for acks (Ctrl-C again to quit at once)\n");
  });
  const tally = new AppendTally();
  const onBad = (where: string, message: string): void => {
    if (plan.onError === "fail") throw inputError(where, message);
    tally.skipped++;
    ctx.out.warn(`skipping ${where}: ${message}`);
  };
  const onCommand = (_where: string, cmd: CommandRecord): boolean => {
    if (plan.commands === "replay" && cmd.op !== "trim") return true;
    tally.dropCommand(cmd.op);
    return false;
  };
  const source = inputRecords({ ...plan.input, onBad, onCommand }, interrupt.signal);
  const batchLimits = plan.atomic ? { ...plan.batch, lingerMs: Infinity } : plan.batch;
  let sender: Sender | undefined;
  let match: number | undefined;
  let held: Batch | undefined;
  let inputFailure: unknown;
  const outstanding: { done: Promise<void>; bytes: number }[] = [];
  let outstandingBytes = 0;

  const send = async (b: Batch): Promise<void> => {
    if (plan.dryRun) return tally.planned(b);
    sender ??= await openSender(stream, plan.sender);
    if (tally.batches === 0 && plan.conds.matchSeqNum !== undefined) match = await resolveMatch(plan.conds, stream);
    const input: AppendInput = { records: b.records.map((p) => p.record) };
    if (match !== undefined) {
      input.matchSeqNum = match;
      match += b.records.length;
    }
    if (plan.conds.fencingToken !== undefined) input.fencingToken = plan.conds.fencingToken;
    await throttle(b);
    tally.sent(b);
    const done = sender.submit(input).then((ack) => onAck(ack, b), (e: unknown) => tally.failed(e, b));
    outstanding.push({ done, bytes: b.bytes });
    outstandingBytes += b.bytes;
    while (outstanding.length > 0 && outstandingBytes > plan.sender.maxInflightBytes) {
      const o = outstanding.shift()!;
      await o.done;
      outstandingBytes -= o.bytes;
    }
  };

  const onAck = (ack: AppendAck, b: Batch): void => {
    tally.acked(ack, b);
    if (plan.acks === "ndjson") void ctx.out.jsonLine(ackToJson(ack));
    else if (plan.acks === "text") ctx.out.success(ackStatusLine(ack));
  };

  const throttle = async (b: Batch): Promise<void> => {
    const due = Math.max(
      plan.rate ? tally.startedAt + ((tally.sentRecords + b.records.length) / plan.rate) * 1000 : 0,
      plan.rateBytes ? tally.startedAt + ((tally.sentBytes + b.bytes) / plan.rateBytes) * 1000 : 0,
    );
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
  };

  try {
    for await (const b of batches(source, batchLimits, interrupt.signal)) {
      if (plan.atomic) {
        if (held) throw inputError(b.records[0]!.where, "--atomic: the input does not fit one batch (1000 records, 1 MiB metered)");
        held = b;
        continue;
      }
      await send(b);
      if (tally.failure) break;
    }
    if (held && !interrupt.signal.aborted) await send(held);
  } catch (e) {
    inputFailure = e;
  } finally {
    interrupt.abort("done"); // stop reading input whatever happened
  }

  if (sender) {
    const all = Promise.all(outstanding.map((o) => o.done));
    const drained = interrupt.which ? await Promise.race([all.then(() => true), sleep(DRAIN_MS).then(() => false)]) : (await all, true);
    if (!drained) sender.abort();
    await all;
    await sender.close().catch(() => undefined); // failures were recorded per batch
  }
  interrupt.dispose();
  finish(ctx, uri, plan, tally, inputFailure, interrupt);
}

function finish(ctx: Context, uri: string, plan: AppendPlan, tally: AppendTally, inputFailure: unknown, interrupt: Interrupt): void {
  const note = tally.commandsNote(plan.commands === "replay");
  if (note) ctx.out.info(note);
  const failure = tally.failure;
  const clean = !inputFailure && (!failure || failure.code === "interrupted");
  if (clean && !ctx.out.quiet) process.stderr.write(`${plan.dryRun ? tally.dryRunSummary() : tally.summary(interrupt.which ? "■" : ctx.out.green("✓"))}\n`);
  if (failure && failure.sideEffects && failure.code !== "interrupted") {
    const err = new SvcError({
      code: failure.code, message: `the outcome of the append is unknown: ${failure.message}. ${tally.knownState(uri)}`,
      origin: failure.origin, status: failure.status, retryable: true, sideEffects: true, cause: failure,
    });
    throw new OperationError("append", uri, err, `nothing was re-sent; read from ${tally.nextSeq ?? "the last acked position"} to see whether the records in doubt are there`);
  }
  if (failure && failure.code !== "interrupted") {
    const before = tally.records > 0 ? `${tally.records} records were appended before the failure (${tally.range()})` : undefined;
    throw new OperationError("append", uri, failure, [conditionHint(failure), before].filter(Boolean).join("; ") || undefined);
  }
  if (inputFailure) {
    if (tally.records > 0 && !ctx.out.quiet) process.stderr.write(`note: ${tally.records} records were appended before the bad input (${tally.range()}); the batch with the bad input was not sent\n`);
    throw inputFailure instanceof SvcError && inputFailure.code === "bad_input" ? inputFailure : new OperationError("append", uri, inputFailure);
  }
  if (interrupt.which) {
    process.stderr.write(`interrupted: ${tally.knownState(uri)}\n`);
    throw new ExitRequest(interrupt.exitCode);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
