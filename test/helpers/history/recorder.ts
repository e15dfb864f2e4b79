/**
 * Records a history while clients run: wrap every call in `append`, `read`, `checkTail` or
 * `readSession` and the recorder notes invoke/complete times (CLOCK_MONOTONIC µs) and the
 * outcome, classifying errors by their SvcError flags: a definite failure (`sideEffects:
 * false`) is `fail`, anything else (a reset, a timeout, a 5xx, a kill) is `info`.
 *
 * The recorder is transport-agnostic: it takes the result of the caller's own promise, so the
 * same history can come from SvcClient, a raw HTTP client, or several servers (multi-node).
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import {
  FencingTokenMismatchError,
  RangeNotSatisfiableError,
  SeqNumMismatchError,
  SvcError,
} from "../../../src/errors.js";
import { isCommandRecord, readCommand } from "../../../src/rules/commands.js";
import type { AppendAck, AppendInput, ReadBatch, SequencedRecord, StreamPosition } from "../../../src/types.js";
import type { AppendOp, CheckTailOp, History, Observed, Op, ReadOp, SessionReadOp } from "./types.js";

const dec = new TextDecoder();

/** Monotonic clock in µs; comparable across processes on one host. */
export function now(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** The canonical identity of a record: its body for data records, `fence:`/`trim:` for commands. */
export function recordKey(r: { headers: { name: Uint8Array; value: Uint8Array }[]; body: Uint8Array }): string {
  if (isCommandRecord(r)) {
    const c = readCommand(r);
    if (c === undefined) return `command:${Buffer.from(r.body).toString("hex")}`;
    return c.op === "fence" ? `fence:${c.token}` : `trim:${c.trimPoint}`;
  }
  if (r.body.length <= KEY_TEXT) return dec.decode(r.body);
  // A long body is named by its start, its length and a digest of all of it: any change is
  // still seen, and a history does not hold every body many times over (the extended crash
  // run's readers observed 900 KB bodies across 200 cycles and exhausted the test's heap).
  const digest = createHash("sha256").update(r.body).digest("base64url").slice(0, 16);
  return `${dec.decode(r.body.subarray(0, KEY_TEXT))}…${r.body.length}:${digest}`;
}

/** Bodies up to this many bytes are their own key. */
const KEY_TEXT = 64;

export function observed(records: SequencedRecord[]): Observed[] {
  return records.map((r) => ({ seq: r.seqNum, key: recordKey(r) }));
}

function outcomeOf(e: unknown): { outcome: "fail" | "info"; error: string } {
  if (e instanceof SvcError) return { outcome: e.sideEffects ? "info" : "fail", error: e.code };
  return { outcome: "info", error: (e as Error)?.message ?? String(e) };
}

export class Recorder {
  readonly ops: Op[] = [];
  private nextId = 0;

  constructor(readonly meta: Record<string, unknown> = {}) {}

  private begin<T extends Op>(op: Omit<T, "id" | "invoke">): T {
    const full = { ...op, id: this.nextId++, invoke: now() } as T;
    this.ops.push(full);
    return full;
  }

  /** Records one append; resolves with the ack or undefined (never throws). */
  async append(
    client: number,
    stream: string,
    via: "unary" | "session",
    input: AppendInput,
    send: () => Promise<AppendAck>,
  ): Promise<AppendAck | undefined> {
    const op = this.begin<AppendOp>({
      kind: "append",
      client,
      stream,
      via,
      records: input.records.map(recordKey),
      ...(input.matchSeqNum !== undefined ? { matchSeqNum: input.matchSeqNum } : {}),
      ...(input.fencingToken !== undefined ? { fencingToken: input.fencingToken } : {}),
    });
    try {
      const ack = await send();
      Object.assign(op, {
        complete: now(),
        outcome: "ok",
        start: ack.start.seqNum,
        end: ack.end.seqNum,
        tail: ack.tail.seqNum,
      });
      return ack;
    } catch (e) {
      op.complete = now();
      if (e instanceof SeqNumMismatchError)
        Object.assign(op, { outcome: "fail", error: e.code, expectedSeqNum: e.expected });
      else if (e instanceof FencingTokenMismatchError)
        Object.assign(op, { outcome: "fail", error: e.code, currentToken: e.expected });
      else Object.assign(op, outcomeOf(e));
      return undefined;
    }
  }

  /** Records one unary read of at most `limit` records from `from`. */
  async read(
    client: number,
    stream: string,
    from: number,
    limit: number,
    send: () => Promise<ReadBatch>,
  ): Promise<ReadBatch | undefined> {
    const op = this.begin<ReadOp>({ kind: "read", client, stream, from, limit, records: [] });
    try {
      const batch = await send();
      const records = observed(batch.records);
      Object.assign(op, { complete: now(), outcome: "ok", records });
      if (records.length > 0 && records.length < limit) op.tail = records[records.length - 1]!.seq + 1;
      return batch;
    } catch (e) {
      op.complete = now();
      if (e instanceof RangeNotSatisfiableError) Object.assign(op, { outcome: "ok", tail: e.tail.seqNum });
      else Object.assign(op, outcomeOf(e));
      return undefined;
    }
  }

  async checkTail(client: number, stream: string, send: () => Promise<StreamPosition>): Promise<number | undefined> {
    const op = this.begin<CheckTailOp>({ kind: "check-tail", client, stream });
    try {
      const tail = await send();
      Object.assign(op, { complete: now(), outcome: "ok", tail: tail.seqNum });
      return tail.seqNum;
    } catch (e) {
      Object.assign(op, { complete: now(), ...outcomeOf(e) });
      return undefined;
    }
  }

  /**
   * Records a read session: `events` yields batches and heartbeats (SvcClient's ReadEvent
   * shape). Stops after `maxRecords` records; whatever was delivered before an error stays
   * in the history (the error makes the op `info`, its deliveries are still checked).
   */
  async readSession(
    client: number,
    stream: string,
    from: number,
    maxRecords: number,
    events: AsyncIterable<{ type: "batch" | "heartbeat"; records?: SequencedRecord[]; tail?: StreamPosition }>,
  ): Promise<void> {
    const op = this.begin<SessionReadOp>({ kind: "read-session", client, stream, from, events: [] });
    let got = 0;
    try {
      for await (const ev of events) {
        if (ev.type === "heartbeat") op.events.push({ heartbeat: ev.tail?.seqNum });
        else {
          op.events.push({ records: observed(ev.records ?? []), ...(ev.tail ? { tail: ev.tail.seqNum } : {}) });
          got += ev.records?.length ?? 0;
        }
        if (got >= maxRecords) break;
      }
      Object.assign(op, { complete: now(), outcome: "ok" });
    } catch (e) {
      Object.assign(op, { complete: now(), ...outcomeOf(e) });
    }
  }

  /** Ops still pending (the server was killed under them) become indefinite. */
  settle(): void {
    for (const op of this.ops) if (op.outcome === undefined) Object.assign(op, { outcome: "info", error: "pending" });
  }

  history(final: History["final"]): History {
    this.settle();
    return { meta: this.meta, ops: this.ops, final };
  }
}

/** A history as JSONL: a meta line, one line per op, one line per final stream. */
/** The history as JSONL lines (no newlines inside); a long history is kept line by line. */
export function historyLines(h: History): string[] {
  return [
    JSON.stringify({ meta: h.meta }),
    ...h.ops.map((o) => JSON.stringify(o)),
    ...Object.entries(h.final).map(([stream, f]) => JSON.stringify({ final: stream, ...f })),
  ];
}

/**
 * The history as one JSONL text. Only for short histories: 200 crash cycles made one longer
 * than V8's longest string (the extended run lost its verdict to "Invalid string length");
 * keepArtifacts takes historyLines instead.
 */
export function historyJsonl(h: History): string {
  return `${historyLines(h).join("\n")}\n`;
}

export function writeHistory(path: string, h: History): void {
  const fd = openSync(path, "w");
  try {
    for (const line of historyLines(h)) writeSync(fd, `${line}\n`);
  } finally {
    closeSync(fd);
  }
}

/** Reads a history written by writeHistory. */
export function parseHistory(text: string): History {
  const h: History = { meta: {}, ops: [], final: {} };
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const o = JSON.parse(line);
    if (o.meta) h.meta = o.meta;
    else if (o.final !== undefined) {
      const { final, ...f } = o;
      h.final[final] = f;
    } else h.ops.push(o);
  }
  return h;
}
