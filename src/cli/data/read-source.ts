/**
 * Where read events come from: the client's read session (default: protobuf frames, exact
 * bytes, resumes across disconnects with no duplicate or gap), the same over SSE
 * (`--transport sse`: JSON events, resumed with Last-Event-ID), or a loop of unary reads
 * (`--transport unary`: ≤ 1000 records per call, long-polls of 60 s when following).
 */
import type { StreamClient } from "../../client/stream.js";
import { RangeNotSatisfiableError } from "../../errors.js";
import { meteredSize } from "../../rules/records.js";
import type { ReadLimits, ReadStart, SequencedRecord, StreamPosition } from "../../types.js";

export type ReadTransport = "session" | "unary" | "sse";

export type SourceEvent =
  | { type: "batch"; records: SequencedRecord[]; tail?: StreamPosition }
  | { type: "heartbeat"; tail?: StreamPosition };

export interface SourcePlan {
  start: ReadStart;
  limits: ReadLimits;
  /** Keep waiting at the tail (unary only; a session follows per its limits and wait). */
  follow: boolean;
  transport: ReadTransport;
}

export function readEvents(stream: StreamClient, plan: SourcePlan, signal: AbortSignal, onReconnect: (reason: string) => void): AsyncGenerator<SourceEvent> {
  switch (plan.transport) {
    case "session": return stream.readSession(plan.start, plan.limits, { signal, onReconnect, follow: plan.follow });
    case "sse": return stream.sseReadSession(plan.start, plan.limits, { signal, onReconnect, follow: plan.follow });
    case "unary": return unaryEvents(stream, plan, signal);
  }
}

async function* unaryEvents(stream: StreamClient, plan: SourcePlan, signal: AbortSignal): AsyncGenerator<SourceEvent> {
  const { limits } = plan;
  let start = plan.start;
  let count = limits.count;
  let bytes = limits.bytes;
  let progressed = false;
  while (!signal.aborted) {
    if (count === 0 || bytes === 0) return;
    const wait = plan.follow ? 60 : limits.wait;
    let batch;
    try {
      batch = await stream.read(start, {
        count: count === undefined ? undefined : Math.min(count, 1000),
        bytes, until: limits.until, clamp: progressed ? undefined : limits.clamp, wait,
      });
    } catch (e) {
      if (e instanceof RangeNotSatisfiableError && progressed) return;
      throw e;
    }
    if (batch.records.length === 0) {
      if (!plan.follow || limits.until !== undefined || bytes !== undefined) return;
      yield batch.tail ? { type: "heartbeat", tail: batch.tail } : { type: "heartbeat" };
      continue;
    }
    const last = batch.records[batch.records.length - 1]!;
    start = { seqNum: last.seqNum + 1 };
    progressed = true;
    if (count !== undefined) count -= batch.records.length;
    if (bytes !== undefined) bytes -= batch.records.reduce((n, r) => n + meteredSize(r), 0);
    yield batch.tail ? { type: "batch", records: batch.records, tail: batch.tail } : { type: "batch", records: batch.records };
  }
}
