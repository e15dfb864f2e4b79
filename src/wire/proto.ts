/**
 * Protobuf encode/decode of the svc.v1 messages (protocol.md §5), the only protobufjs user:
 * the small messages go through the generated code, the record-carrying ones (AppendInput,
 * ReadBatch) through the one-pass codecs in record-encode.ts and record-decode.ts.
 *
 *   StreamPosition  1 seq_num uint64 · 2 timestamp uint64
 *   Header          1 name bytes · 2 value bytes
 *   AppendRecord    1 timestamp optional uint64 · 2 headers repeated Header · 3 body bytes
 *   AppendInput     1 records repeated AppendRecord · 2 match_seq_num optional uint64
 *                   · 3 fencing_token optional string
 *   AppendAck       1 start · 2 end · 3 tail (StreamPosition, always set)
 *   SequencedRecord 1 seq_num · 2 timestamp · 3 headers repeated Header · 4 body bytes
 *   ReadBatch       1 records repeated SequencedRecord · 2 tail optional StreamPosition
 *
 * Implicit-presence fields are omitted when zero or empty; `optional` ones are written even
 * when zero, so `match_seq_num = 0` and `timestamp = 0` keep their presence. u64 values decode
 * to safe JS integers or fail with `out_of_range`: they are never rounded.
 */

import { SvcError } from "../errors.js";
import type { AppendAck, AppendInput, ReadBatch, StreamPosition } from "../types.js";
import { svc } from "./gen/svc.js";
import { decodeAppendInputBytes, decodeReadBatchBytes, U64RangeError } from "./record-decode.js";
import { encodeAppendInputBytes, encodeReadBatchBytes } from "./record-encode.js";

const pb = svc.v1;

type U64 = number | { low: number; high: number } | null | undefined;

/** A decoded uint64 as a safe integer; protobufjs yields Long objects for 64-bit fields. */
function u64(value: U64, field: string): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw outOfRange(field);
    return value;
  }
  const high = value.high >>> 0;
  if (high > 0x1fffff) throw outOfRange(field);
  return high * 0x1_0000_0000 + (value.low >>> 0);
}

function outOfRange(field: string): SvcError {
  return new SvcError({
    code: "out_of_range",
    origin: "client",
    retryable: false,
    sideEffects: false,
    message: `${field} is larger than 2^53 - 1 and cannot be represented exactly`,
  });
}

function checkU64Input(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw outOfRange(field);
  return value;
}

function undecodable(what: string, cause: unknown): SvcError {
  const detail = cause instanceof Error ? `: ${cause.message}` : "";
  return new SvcError({
    code: "bad_proto",
    origin: "client",
    status: 400,
    retryable: false,
    sideEffects: false,
    message: `undecodable ${what}${detail}`,
    cause,
  });
}

function decodeWith<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SvcError) throw e;
    if (e instanceof U64RangeError) throw outOfRange(e.field);
    throw undecodable(what, e);
  }
}

/** The hand-written codec's range errors as the same `out_of_range` as everywhere else. */
function encodeWith<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof U64RangeError) throw outOfRange(e.field);
    throw e;
  }
}

function positionOut(p: StreamPosition): { seqNum?: number; timestamp?: number } {
  const out: { seqNum?: number; timestamp?: number } = {};
  if (p.seqNum !== 0) out.seqNum = checkU64Input(p.seqNum, "seq_num");
  if (p.timestamp !== 0) out.timestamp = checkU64Input(p.timestamp, "timestamp");
  return out;
}

function positionIn(p: { seqNum?: U64; timestamp?: U64 } | null | undefined, field: string): StreamPosition {
  return { seqNum: u64(p?.seqNum, `${field}.seq_num`), timestamp: u64(p?.timestamp, `${field}.timestamp`) };
}

/** AppendInput bytes (record-encode.ts); `reserve` free bytes in front for a frame head. */
export function encodeAppendInput(input: AppendInput, reserve = 0): Uint8Array {
  return encodeWith(() => encodeAppendInputBytes(input, reserve));
}

/** Decodes an AppendInput in one pass, wire types checked (a known field with another wire type is 400 bad_proto). */
export function decodeAppendInput(bytes: Uint8Array): AppendInput {
  return decodeWith("AppendInput", () => decodeAppendInputBytes(bytes));
}

export function encodeAppendAck(ack: AppendAck): Uint8Array {
  return pb.AppendAck.encode({
    start: positionOut(ack.start),
    end: positionOut(ack.end),
    tail: positionOut(ack.tail),
  }).finish();
}

export function decodeAppendAck(bytes: Uint8Array): AppendAck {
  const msg = decodeWith("AppendAck", () => pb.AppendAck.decode(bytes));
  return { start: positionIn(msg.start, "start"), end: positionIn(msg.end, "end"), tail: positionIn(msg.tail, "tail") };
}

/** ReadBatch bytes (record-encode.ts); `reserve` free bytes in front for a frame head. */
export function encodeReadBatch(batch: ReadBatch, reserve = 0): Uint8Array {
  return encodeWith(() => encodeReadBatchBytes(batch, reserve));
}

export function decodeReadBatch(bytes: Uint8Array): ReadBatch {
  return decodeWith("ReadBatch", () => decodeReadBatchBytes(bytes));
}
