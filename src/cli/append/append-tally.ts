/** What an append run has done so far: sent, acked, in doubt; and how to say it. */
import { SvcError } from "../../errors.js";
import { positionToJson } from "../../format/record-ack.js";
import { seqRange } from "../../format/seq-range.js";
import { humanByteRate, humanRate } from "../../format/units.js";
import type { AppendAck } from "../../types.js";
import { humanBytes } from "../progress.js";

/** A batch as the tally counts it (it keeps no record). */
export interface Sized {
  readonly count: number;
  /** Metered bytes. */
  readonly bytes: number;
}

export class AppendTally {
  readonly startedAt = Date.now();
  batches = 0;
  sentRecords = 0;
  sentBytes = 0;
  records = 0;
  bytes = 0;
  first: number | undefined;
  /** The position after the last acked record: where the stream went on (the next position). */
  nextSeq: number | undefined;
  /** The tail the last ack reported. */
  tail: AppendAck["tail"] | undefined;
  inDoubtRecords = 0;
  inDoubtBatches = 0;
  /** Batches acked or failed (the rest of those sent are in flight). */
  settledBatches = 0;
  settledRecords = 0;
  /** Records read from the input and never sent (Ctrl-C sends nothing new). */
  unsentRecords = 0;
  skipped = 0;
  /** `\r` bytes text input dropped before newlines (CRLF line ends). */
  crDropped = 0;
  /** Command records in the input that were not appended, by operation. */
  readonly commandsDropped = new Map<string, number>();
  failure: SvcError | undefined;

  planned(b: Sized): void {
    this.batches++;
    this.sentRecords += b.count;
    this.sentBytes += b.bytes;
  }

  sent(b: Sized): void {
    this.planned(b);
  }

  acked(ack: AppendAck, b: Sized): void {
    this.settle(b);
    this.records += b.count;
    this.bytes += b.bytes;
    this.first ??= ack.start.seqNum;
    this.nextSeq = ack.end.seqNum;
    this.tail = ack.tail;
  }

  /** Records read that will not be sent (after Ctrl-C). */
  unsent(count: number): void {
    this.unsentRecords += count;
  }

  private settle(b: Sized): void {
    this.settledBatches++;
    this.settledRecords += b.count;
  }

  failed(e: unknown, b: Sized): void {
    this.settle(b);
    const err =
      e instanceof SvcError ? e : new SvcError({ code: "network", message: String(e), origin: "client", cause: e });
    if (err.code === "not_applied") return;
    if (err.sideEffects) {
      this.inDoubtRecords += b.count;
      this.inDoubtBatches++;
    }
    this.failure ??= err;
  }

  dropCommand(op: string): void {
    this.commandsDropped.set(op, (this.commandsDropped.get(op) ?? 0) + 1);
  }

  /** The stderr note about command records left out, or undefined when none were. */
  commandsNote(replay: boolean): string | undefined {
    if (this.commandsDropped.size === 0) return undefined;
    const n = [...this.commandsDropped.values()].reduce((a, b) => a + b, 0);
    const what = [...this.commandsDropped].map(([op, k]) => `${k} ${op}`).join(", ");
    const how = replay
      ? "a trim names a sequence number of the stream it came from, so it is never replayed"
      : "only data records were copied; --commands replay appends fence records too (trims are never replayed)";
    return `note: skipped ${plural(n, "command record")} in the input (${what}): ${how}`;
  }

  /** The records acked, both ends included (`0..2`), as every range svc prints. */
  range(): string {
    return this.first === undefined ? "none" : seqRange(this.first, this.nextSeq! - 1);
  }

  knownState(uri: string): string {
    const acked =
      this.first === undefined
        ? "no batch was acknowledged"
        : `acknowledged: ${plural(this.records, "record")}, ${this.range()} (next position ${this.nextSeq})`;
    const doubt =
      this.inDoubtRecords > 0
        ? `; in doubt: ${plural(this.inDoubtRecords, "record")} in ${this.inDoubtBatches} ${this.inDoubtBatches === 1 ? "batch" : "batches"} (check with \`svc read ${uri} -s ${this.nextSeq ?? 0} -e\`)`
        : "";
    return `${acked}${doubt}${this.unsentNote()}`;
  }

  /**
   * What is known when the process is about to end at once (a second Ctrl-C): the acks so far,
   * and every batch sent without an answer as in doubt.
   */
  abandonedState(uri: string): string {
    const batches = this.batches - this.settledBatches;
    const records = this.sentRecords - this.settledRecords + this.inDoubtRecords;
    const acked =
      this.first === undefined
        ? "no batch was acknowledged"
        : `acknowledged: ${plural(this.records, "record")}, ${this.range()} (next position ${this.nextSeq})`;
    const doubt =
      records > 0
        ? `; in doubt: ${plural(records, "record")} in ${batches + this.inDoubtBatches} ${batches + this.inDoubtBatches === 1 ? "batch" : "batches"} sent without an answer (check with \`svc read ${uri} -s ${this.nextSeq ?? 0} -e\`)`
        : "";
    return `${acked}${doubt}${this.unsentNote()}`;
  }

  private unsentNote(): string {
    return this.unsentRecords > 0 ? `; read and not sent: ${plural(this.unsentRecords, "record")}` : "";
  }

  summary(): string {
    const secs = Math.max(Date.now() - this.startedAt, 1) / 1000;
    const pos = this.first === undefined ? "" : ` ${this.range()}`;
    const skipped = `${this.skipped > 0 ? `, ${this.skipped} malformed skipped` : ""}${this.crNote()}`;
    return `appended ${plural(this.records, "record")} (${humanBytes(this.bytes)} metered)${pos} in ${secs.toFixed(2)}s (${humanByteRate(this.bytes / secs)}, ${humanRate(this.records / secs)} records/s)${skipped}`;
  }

  /** `, 3 CR bytes before newlines dropped (-d '\n' keeps them)` when text input dropped any. */
  private crNote(): string {
    if (this.crDropped === 0) return "";
    return `, ${this.crDropped} CR ${this.crDropped === 1 ? "byte" : "bytes"} before newlines dropped (CRLF line ends; -d '\\n' keeps every byte)`;
  }

  /** The live progress line: records, metered bytes, rate, the last acked record. */
  progressLine(): string {
    const secs = Math.max(Date.now() - this.startedAt, 1) / 1000;
    const pos = this.nextSeq === undefined ? "" : ` · last acked ${this.nextSeq - 1}`;
    return `⦿ appending: ${plural(this.records, "record")} · ${humanBytes(this.bytes)} metered · ${humanByteRate(this.bytes / secs)}${pos}`;
  }

  /** `append --json`: what was acked, the tail, counts, bytes, duration. */
  toJson(dryRun: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = dryRun
      ? { dry_run: true, records: this.sentRecords, bytes: this.sentBytes, batches: this.batches }
      : {
          records: this.records,
          bytes: this.bytes,
          batches: this.batches,
          start: this.first ?? null,
          end: this.nextSeq ?? null,
          tail: this.tail ? positionToJson(this.tail) : null,
        };
    out.duration_ms = Date.now() - this.startedAt;
    if (this.skipped > 0) out.malformed_skipped = this.skipped;
    if (this.crDropped > 0) out.cr_dropped = this.crDropped;
    if (this.commandsDropped.size > 0) out.commands_skipped = Object.fromEntries(this.commandsDropped);
    return out;
  }

  dryRunSummary(): string {
    return `dry run: ${plural(this.sentRecords, "valid record")} (${humanBytes(this.sentBytes)} metered) in ${this.batches} batch${this.batches === 1 ? "" : "es"}${this.skipped > 0 ? `, ${this.skipped} malformed skipped` : ""}${this.crNote()}; nothing was sent`;
  }
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
