/**
 * The append pipeline (docs/design/cli.md, "Appending"; docs/design/reliability.md, "Ctrl-C"): input → batches → the
 * stream's appender (append-pipe.ts), with
 * progress (a live line on a terminal, a line every few seconds in logs), per-batch acks on
 * request (`--acks text|ndjson`, or `-v`), a summary, and careful endings:
 *
 * - malformed input (unparsable, or a record the client refuses): the batch holding it is
 *   never sent; earlier acks are awaited; exit 7;
 * - a condition failure (fencing token, match seq num): exit 5 with the expected value;
 * - an outcome unknown (connection lost, ack timeout): exit 75, saying what was acked and how
 *   many records are in doubt; nothing is ever re-sent;
 * - Ctrl-C: stop reading input and send nothing new (not what was read, nor a batch waiting
 *   under `--rate`), wait (≤ 5 s) for the acks of batches sent, report what was acknowledged
 *   (the records and the next position) and what was read and not sent, exit 130; a second
 *   Ctrl-C ends the process at once, saying what was acknowledged and what is in doubt.
 */
import type { StreamClient } from "../../client/stream.js";
import { SvcError } from "../../errors.js";
import { ackStatusLine, ackToJson } from "../../format/record-ack.js";
import type { CommandRecord } from "../../format/record-command.js";
import type { AppendAck } from "../../types.js";
import type { Context } from "../context.js";
import { ExitRequest, OperationError } from "../failure.js";
import { conditionHint, currentFence } from "../flags/conditions.js";
import { Interrupt } from "../interrupt.js";
import type { Output } from "../output.js";
import { progressMode, StatusTicker } from "../progress.js";
import { BatchPipe, type PipePlan } from "./append-pipe.js";
import { AppendTally, plural } from "./append-tally.js";
import { type Batch, type BatchLimits, batches } from "./batcher.js";
import { type InputOptions, inputError, inputRecords, type Parsed } from "./input-records.js";

/** Per-batch acks: lines on stderr, NDJSON on stdout, none; `progress` = live line / periodic lines. */
type AcksMode = "text" | "ndjson" | "none" | "progress";

export interface AppendPlan extends PipePlan {
  input: Omit<InputOptions, "onBad">;
  onError: "fail" | "skip";
  batch: BatchLimits;
  acks: AcksMode;
  /** Command records in the input: dropped (default) or fences appended; trims never are. */
  commands: "skip" | "replay";
  atomic: boolean;
  /** `--json`: the summary as one JSON document on stdout. */
  json?: boolean;
}

export async function runAppend(ctx: Context, stream: StreamClient, uri: string, plan: AppendPlan): Promise<void> {
  const tally = new AppendTally();
  const interrupt = new Interrupt(
    () =>
      ctx.out.info(
        "interrupted: sending nothing more, waiting for the acks of batches sent (Ctrl-C again to quit at once)",
      ),
    () => ctx.out.notice(`interrupted again, quitting at once: ${tally.abandonedState(uri)}`),
  );
  const ticker = new StatusTicker(
    ctx.out,
    plan.acks === "progress" ? progressMode(ctx.out, true, "periodic") : "off",
    () => tally.progressLine(),
  );
  const policy = inputPolicy(ctx.out, plan, tally);
  const source = inputRecords({ ...plan.input, ...policy }, interrupt.signal);
  // Fencing is opt-in per append: once an append without -F has landed, ask (without writing,
  // but it counts as an append operation) whether the stream is fenced, to tell the person at
  // the terminal (or -v) at the end. Scripts that must respect a fence pass -F.
  let fence: Promise<string | undefined> | undefined;
  const onAck = (ack: AppendAck): void => {
    if (plan.conds.fencingToken === undefined && ctx.out.personWatching) fence ??= currentFence(stream);
    showAck(ctx.out, plan.acks, ack);
  };
  const pipe = new BatchPipe(stream, plan, tally, onAck, policy.onBad);
  let inputFailure: unknown;
  try {
    await pump(source, plan, pipe, tally, interrupt.signal);
  } catch (e) {
    inputFailure = e;
  } finally {
    interrupt.abort("done"); // stop reading input whatever happened
  }
  await pipe.drain(interrupt.which !== undefined);
  interrupt.dispose();
  ticker.stop();
  const fenced = await fence;
  if (fenced !== undefined)
    ctx.out.warn(
      `${uri} is fenced (token ${JSON.stringify(fenced)}), and this append carried no fencing token: fencing is opt-in per append, so it was not checked; writers that must respect the fence pass -F TOKEN`,
    );
  await finish(ctx, uri, plan, tally, inputFailure, interrupt);
}

/** What to do with malformed records and with command records found in the input. */
export function inputPolicy(
  out: Output,
  plan: Pick<AppendPlan, "onError" | "commands">,
  tally: AppendTally,
): Pick<InputOptions, "onBad" | "onCommand" | "skipOversize" | "onCrDropped"> {
  return {
    skipOversize: plan.onError === "skip",
    onCrDropped: (n) => {
      tally.crDropped += n;
    },
    onBad: (where, message, hint) => {
      if (plan.onError === "fail") throw inputError(where, message, hint);
      tally.skipped++;
      out.warn(`skipping ${where}: ${message}`);
    },
    onCommand: (_where: string, cmd: CommandRecord) => {
      if (plan.commands === "replay" && cmd.op !== "trim") return true;
      tally.dropCommand(cmd.op);
      return false;
    },
  };
}

/** Batches the input and hands each batch to the pipe; `--atomic` holds the one batch until the input ends. */
async function pump(
  source: AsyncIterator<Parsed[]>,
  plan: AppendPlan,
  pipe: BatchPipe,
  tally: AppendTally,
  signal: AbortSignal,
): Promise<void> {
  const limits = plan.atomic ? { ...plan.batch, lingerMs: Infinity } : plan.batch;
  let held: Batch | undefined;
  for await (const b of batches(source, limits, signal)) {
    if (plan.atomic) {
      if (held)
        throw inputError(
          b.records[0]!.where,
          "--atomic: the input does not fit one batch (1000 records, 1 MiB metered)",
          "without --atomic the input goes in several batches, each appended atomically; or split it into inputs that fit one batch each",
        );
      held = b;
      continue;
    }
    // After Ctrl-C the batches of what was already read are counted, never sent.
    if (signal.aborted) tally.unsent(b.records.length);
    else await pipe.send(b, signal);
    if (pipe.failed) return;
  }
  if (held && signal.aborted) tally.unsent(held.records.length);
  else if (held) await pipe.send(held, signal);
}

function showAck(out: Output, mode: AcksMode, ack: AppendAck): void {
  if (mode === "ndjson") void out.jsonLine(ackToJson(ack));
  else if (mode === "text") out.success(ackStatusLine(ack));
}

async function finish(
  ctx: Context,
  uri: string,
  plan: AppendPlan,
  tally: AppendTally,
  inputFailure: unknown,
  interrupt: Interrupt,
): Promise<void> {
  const note = tally.commandsNote(plan.commands === "replay");
  if (note) ctx.out.info(note);
  const failure = tally.failure;
  const clean = !inputFailure && (!failure || failure.code === "interrupted");
  if (clean) await summarise(ctx.out, plan, tally, interrupt.which !== undefined);
  if (failure && failure.sideEffects && failure.code !== "interrupted") {
    const err = new SvcError({
      code: failure.code,
      message: `the outcome of the append is unknown: ${failure.message}. ${tally.knownState(uri)}`,
      origin: failure.origin,
      status: failure.status,
      retryable: true,
      sideEffects: true,
      cause: failure,
    });
    throw new OperationError(
      "append",
      uri,
      err,
      `nothing was re-sent; read from ${tally.nextSeq ?? 0} to see whether the records in doubt are there`,
    );
  }
  if (failure && failure.code !== "interrupted") {
    const before =
      tally.records > 0
        ? `${plural(tally.records, "record")} ${tally.records === 1 ? "was" : "were"} appended before the failure (${tally.range()})`
        : undefined;
    throw new OperationError(
      "append",
      uri,
      failure,
      [conditionHint(failure, uri, plan.conds.fencingToken), before].filter(Boolean).join("; ") || undefined,
    );
  }
  if (inputFailure) {
    if (tally.records > 0)
      ctx.out.info(
        `note: ${plural(tally.records, "record")} ${tally.records === 1 ? "was" : "were"} appended before the bad input (${tally.range()}); the batch with the bad input was not sent`,
      );
    throw inputFailure instanceof SvcError && inputFailure.code === "bad_input"
      ? inputFailure
      : new OperationError("append", uri, inputFailure);
  }
  if (interrupt.which) {
    ctx.out.notice(`interrupted: ${tally.knownState(uri)}`);
    throw new ExitRequest(interrupt.exitCode);
  }
}

async function summarise(out: Output, plan: AppendPlan, tally: AppendTally, interrupted: boolean): Promise<void> {
  if (plan.json) await out.jsonLine(tally.toJson(plan.dryRun));
  else if (plan.dryRun) out.info(tally.dryRunSummary());
  else if (interrupted) out.info(`■ ${tally.summary()}`);
  else out.success(tally.summary());
}
