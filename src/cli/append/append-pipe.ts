/**
 * Batches into the stream's appender (client/appender.ts), which checks each input, keeps at
 * most `--max-inflight-bytes` unacknowledged (its `submit` waits for room) and sends it over
 * the transport chosen. What stays here is the command's: the conditions of each input (the
 * match seq num advances batch by batch), `--rate`, the tally of every outcome, and what an
 * input the client refuses means for the user: the record at fault named by file:line
 * (exit 7), or left out with a warning under `--on-error skip`.
 */
import { type Appender, type AppendTicket, type AppendTransport, checkAppendInput } from "../../client/appender.js";
import { BadRecordError } from "../../client/bad-record.js";
import type { StreamClient } from "../../client/stream.js";
import type { AppendAck, AppendInput } from "../../types.js";
import { type Conditions, resolveMatch } from "../flags/conditions.js";
import type { AppendTally, Sized } from "./append-tally.js";
import type { Batch } from "./batcher.js";

interface AppenderPlan {
  transport: AppendTransport;
  /**
   * The session was not asked for by name (`--transport` unset, no `--ack-timeout`): an input
   * that is one small batch (≤ 64 KiB), ended before it was sent, goes as one unary append,
   * which a one-shot process sets up in a fraction of a session's time (HTTP/1.1, no framing).
   */
  unaryForOneBatch?: boolean;
  maxInflightBytes: number;
  /** Idle bound on acks while batches are in flight (default: the client's --timeout). */
  ackTimeoutMs?: number;
  onReconnect: (reason: string) => void;
}

export interface PipePlan {
  appender: AppenderPlan;
  conds: Conditions;
  dryRun: boolean;
  rate?: number;
  rateBytes?: number;
}

/** The largest single batch `unaryForOneBatch` sends unary (JSON, base64 bodies). */
const ONE_BATCH_UNARY_MAX_BYTES = 64 * 1024;

const DRAIN_MS = 5_000;

export class BatchPipe {
  private appender: Appender | undefined;
  private match: number | undefined;
  private readonly unsettled = new Set<Promise<void>>();

  /** `onBad` reports a record the client refused: it throws to stop, returns to skip it. */
  constructor(
    private readonly stream: StreamClient,
    private readonly plan: PipePlan,
    private readonly tally: AppendTally,
    private readonly onAck: (ack: AppendAck) => void,
    private readonly onBad: (where: string, message: string) => void,
  ) {}

  get failed(): boolean {
    return this.tally.failure !== undefined;
  }

  /**
   * Hands `b` to the appender once it has room (a dry run only checks it); its ack is tallied
   * when it comes. Once `stop` is aborted (Ctrl-C) nothing new is sent: a batch waiting for its
   * turn under `--rate` is counted as read and not sent.
   */
  async send(b: Batch, stop?: AbortSignal): Promise<void> {
    if (!this.plan.dryRun) {
      this.appender ??= await openAppender(this.stream, this.plan.appender, b);
      if (this.tally.batches === 0 && this.plan.conds.matchSeqNum !== undefined)
        this.match = await resolveMatch(this.plan.conds, this.stream);
      await sleepUntil(throttleDue(this.plan, this.tally, b), stop);
    }
    if (stop?.aborted) return this.tally.unsent(b.records.length);
    const taken = await this.offer(b);
    if (!taken) return;
    // What the tally needs, not the batch: its records are garbage once the appender encoded them.
    const size = sized(taken.batch);
    if (!taken.ticket) return this.tally.planned(size);
    this.tally.sent(size);
    if (this.match !== undefined) this.match += size.count;
    const done = taken.ticket.ack().then(
      (ack) => {
        this.tally.acked(ack, size);
        this.onAck(ack);
      },
      (e: unknown) => this.tally.failed(e, size),
    );
    this.unsettled.add(done);
    void done.then(() => this.unsettled.delete(done));
  }

  /** Waits for the acks in flight (after an interrupt at most 5 s, then abandons them) and closes. */
  async drain(interrupted: boolean): Promise<void> {
    if (!this.appender) return;
    const all = Promise.all([...this.unsettled]);
    const drained = interrupted
      ? await Promise.race([all.then(() => true), sleep(DRAIN_MS).then(() => false)])
      : (await all, true);
    if (!drained) this.appender.abort("interrupted");
    await all;
    await this.appender.close().catch(() => undefined); // failures were recorded per batch
  }

  /**
   * Submits `b` (a dry run checks it with the client's same check), without each record the
   * client's check refuses that `onBad` lets go; undefined when nothing of it was taken.
   */
  private async offer(b: Batch): Promise<{ batch: Batch; ticket?: AppendTicket } | undefined> {
    for (;;) {
      try {
        const input = this.input(b);
        if (this.plan.dryRun) {
          checkAppendInput(input);
          return { batch: b };
        }
        return { batch: b, ticket: await this.appender!.submit(input) };
      } catch (e) {
        const rest = this.withoutBadRecord(e, b);
        if (rest === undefined) {
          this.tally.sent(sized(b));
          this.tally.failed(e, sized(b));
          return undefined;
        }
        if (rest.records.length === 0) return undefined;
        b = rest;
      }
    }
  }

  private input(b: Batch): AppendInput {
    const input: AppendInput = { records: b.records.map((p) => p.record) };
    if (this.match !== undefined) input.matchSeqNum = this.match;
    if (this.plan.conds.fencingToken !== undefined) input.fencingToken = this.plan.conds.fencingToken;
    return input;
  }

  /** After the client refused `b` for one of its records: `b` without it (told to `onBad`); else undefined. */
  private withoutBadRecord(e: unknown, b: Batch): Batch | undefined {
    if (!(e instanceof BadRecordError)) return undefined;
    const bad = b.records[e.index];
    if (!bad) return undefined;
    this.onBad(bad.where, e.problem);
    return { ...b, records: b.records.filter((_, k) => k !== e.index), bytes: b.bytes - bad.size };
  }
}

function sized(b: Batch): Sized {
  return { count: b.records.length, bytes: b.bytes };
}

/** `first` is the first batch to send: when it is also the last and small, it may go unary. */
function openAppender(stream: StreamClient, o: AppenderPlan, first: Batch): Promise<Appender> {
  const oneSmallBatch = o.unaryForOneBatch === true && first.last === true && first.bytes <= ONE_BATCH_UNARY_MAX_BYTES;
  return stream.appender({
    transport: oneSmallBatch ? "unary" : o.transport,
    maxInflightBytes: o.maxInflightBytes,
    ...(o.ackTimeoutMs !== undefined ? { ackTimeoutMs: o.ackTimeoutMs } : {}),
    onReconnect: o.onReconnect,
  });
}

/** When batch `b` may go under `--rate` / `--rate-bytes` (epoch ms; 0 = now). */
export function throttleDue(plan: Pick<PipePlan, "rate" | "rateBytes">, tally: AppendTally, b: Batch): number {
  return Math.max(
    plan.rate ? tally.startedAt + ((tally.sentRecords + b.records.length) / plan.rate) * 1000 : 0,
    plan.rateBytes ? tally.startedAt + ((tally.sentBytes + b.bytes) / plan.rateBytes) * 1000 : 0,
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/** Sleeps until `due` (epoch ms), or until `stop` is aborted. */
async function sleepUntil(due: number, stop: AbortSignal | undefined): Promise<void> {
  if (due <= Date.now() || stop?.aborted) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stop?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, due - Date.now());
    stop?.addEventListener("abort", done, { once: true });
  });
}
