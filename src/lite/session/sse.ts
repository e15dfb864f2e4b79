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
 * subtracts the right amounts. A live batch's `data:` line is made once per record format for
 * every session that follows the stream, and its whole event once per id line the followers
 * share (`liveEvent`).
 */

import { type SvcError, serverError } from "../../errors.js";
import { meteredBatchSize } from "../../rules/records.js";
import type { ReadBatch, RecordFormat, StreamPosition } from "../../types.js";
import { positionToJson, readBatchToJson } from "../../wire/json.js";
import type { LiveBatch } from "../store/live-fanout.js";
import { wireError } from "../wire-error.js";
import type { SessionIO } from "./io.js";
import { type PumpOptions, pumpRead, type ReadSource } from "./read-pump.js";

interface SseOptions extends PumpOptions {
  format: RecordFormat;
  /** Cumulative count and bytes already delivered (from Last-Event-ID). */
  startCount?: number;
  startBytes?: number;
}

/** Parses `Last-Event-ID: seq,count,bytes`; throws bad_header when malformed. */
export function parseLastEventId(value: string): { seqNum: number; count: number; bytes: number } {
  const m = /^([0-9]+),([0-9]+),([0-9]+)$/.exec(value.trim());
  const nums = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [];
  if (!m || !nums.every(Number.isSafeInteger)) {
    // Quoted cut: a header of any length is not echoed back whole.
    const shown =
      value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}… (${value.length} characters)` : JSON.stringify(value);
    throw serverError("bad_header", `invalid Last-Event-ID ${shown}: expected seq_num,count,bytes`);
  }
  return { seqNum: nums[0]!, count: nums[1]!, bytes: nums[2]! };
}

const encoder = new TextEncoder();

/** The `data:` line and blank line of a batch event. */
function dataLine(batch: ReadBatch, format: RecordFormat): string {
  const { records, tail } = batch;
  return `data: ${JSON.stringify(readBatchToJson(tail ? { records, tail } : { records }, format))}\n\n`;
}

export async function runSseSession(io: SessionIO, feed: ReadSource, opts: SseOptions): Promise<void> {
  let count = opts.startCount ?? 0;
  let bytes = opts.startBytes ?? 0;
  const send = (text: string): Promise<void> => io.write(encoder.encode(text));
  const ping = (tail: StreamPosition | undefined): Promise<void> =>
    send(
      `event: ping\ndata: ${JSON.stringify(tail ? { timestamp: Date.now(), tail: positionToJson(tail) } : { timestamp: Date.now() })}\n\n`,
    );
  const key = `sse:${opts.format}`;
  try {
    const result = await pumpRead(
      feed,
      io,
      {
        async batch(batch: ReadBatch) {
          const { records, tail } = batch;
          if (records.length === 0) return tail ? ping(tail) : undefined;
          count += records.length;
          bytes += meteredBatchSize(records);
          const last = records[records.length - 1]!.seqNum;
          await send(`event: batch\nid: ${last},${count},${bytes}\n${dataLine(batch, opts.format)}`);
        },
        heartbeat: ping,
        live: {
          shape: { key, make: (b: LiveBatch) => encoder.encode(dataLine(b.readBatch, opts.format)) },
          deliver(b) {
            const event = liveEvent(b, key, count, bytes);
            count += b.records.length;
            bytes += b.metered;
            return io.writeNow(event);
          },
        },
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

/** Data lines up to this size are joined to their event and id lines once per batch and id. */
const JOINED_MAX = 16 * 1024;
/** Distinct id lines of one batch kept joined (followers resumed at other counts differ). */
const JOINED_IDS = 64;

/**
 * A live batch's whole event for a session that delivered `count` records and `bytes` so far.
 * Followers that started alike share the same id line, so the event (its event and id lines
 * joined to the data line every follower shares) is made once per batch and id line, and
 * written to each as one buffer; finding it costs a follower one lookup by number, no string.
 * A large data line, or a session whose id line few share, gets its own id line written before
 * the shared data (two pieces as one write): never a copy of the data per session.
 */
function liveEvent(b: LiveBatch, key: string, count: number, bytes: number): readonly Uint8Array[] {
  const joined = b.joined(key);
  const hit = joined.get(count);
  if (hit !== undefined && hit.bytes === bytes) return hit.pieces;
  const data = b.shaped(key)!;
  const head = Buffer.from(
    `event: batch\nid: ${b.end - 1},${count + b.records.length},${bytes + b.metered}\n`,
    "latin1",
  );
  if (data.length > JOINED_MAX || joined.size >= JOINED_IDS || hit !== undefined) return [head, data];
  const pieces = [Buffer.concat([head, data])];
  joined.set(count, { bytes, pieces });
  return pieces;
}

function errorEvent(err: SvcError): string {
  return `event: error\ndata: ${JSON.stringify(err.toBody())}\n\n`;
}
