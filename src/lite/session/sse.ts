/**
 * SSE read sessions (protocol.md §6.9), for browsers:
 *
 *   event: batch             id: <last seq_num>,<cumulative count>,<cumulative bytes>
 *   data: {"records":[...],"tail"?:{...}}          (records in the requested svc-format)
 *
 *   event: ping              data: {"timestamp": <server ms>, "tail": {...}}
 *   event: error             data: {"code": ..., "message": ...}     (then the body ends)
 *   data: [DONE]                                                        (clean end)
 *
 * Cumulative counts continue from a resumed `Last-Event-ID`, so a second resume still
 * subtracts the right amounts.
 */
import type { ReadBatch, RecordFormat, StreamPosition } from "../../types.js";
import { serverError, type SvcError } from "../../errors.js";
import { wireError } from "../wire-error.js";
import { readBatchToJson, positionToJson } from "../../wire/json.js";
import { meteredBatchSize } from "../../rules/records.js";
import { pumpFeed, type ReadFeed, type PumpOptions } from "./feed-pump.js";
import type { SessionIO } from "./io.js";

export interface SseOptions extends PumpOptions {
  format: RecordFormat;
  /** Cumulative count and bytes already delivered (from Last-Event-ID). */
  startCount?: number;
  startBytes?: number;
}

/** Parses `Last-Event-ID: seq,count,bytes`; throws bad_header when malformed. */
export function parseLastEventId(value: string): { seqNum: number; count: number; bytes: number } {
  const m = /^([0-9]+),([0-9]+),([0-9]+)$/.exec(value.trim());
  const nums = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [];
  if (!m || !nums.every(Number.isSafeInteger))
    throw serverError("bad_header", `invalid Last-Event-ID ${JSON.stringify(value)}: expected seq_num,count,bytes`);
  return { seqNum: nums[0]!, count: nums[1]!, bytes: nums[2]! };
}

const encoder = new TextEncoder();

export async function runSseSession(io: SessionIO, feed: ReadFeed, opts: SseOptions): Promise<void> {
  let count = opts.startCount ?? 0;
  let bytes = opts.startBytes ?? 0;
  const send = (text: string): Promise<void> => io.write(encoder.encode(text));
  const ping = (tail: StreamPosition): Promise<void> =>
    send(`event: ping\ndata: ${JSON.stringify({ timestamp: Date.now(), tail: positionToJson(tail) })}\n\n`);
  try {
    const result = await pumpFeed(
      feed,
      io,
      {
        async batch({ records, tail }: ReadBatch) {
          if (records.length === 0) return tail ? ping(tail) : undefined;
          count += records.length;
          bytes += meteredBatchSize(records);
          const last = records[records.length - 1]!.seqNum;
          const data = JSON.stringify(readBatchToJson(tail ? { records, tail } : { records }, opts.format));
          await send(`event: batch\nid: ${last},${count},${bytes}\ndata: ${data}\n\n`);
        },
        heartbeat: ping,
      },
      opts,
    );
    if (result === "done") await send("data: [DONE]\n\n");
    else if (result === "draining")
      await send(
        errorEvent(
          serverError("server_draining", "the server is shutting down; reconnect with Last-Event-ID to continue"),
        ),
      );
  } catch (e) {
    opts.onError?.(e);
    await send(errorEvent(wireError(e)));
  }
  io.end();
}

function errorEvent(err: SvcError): string {
  return `event: error\ndata: ${JSON.stringify(err.toBody())}\n\n`;
}
