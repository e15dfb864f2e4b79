/**
 * Protobuf encode/decode of the svc.v1 messages (protocol.md §5), the only protobufjs user.
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
import { svc } from "./gen/svc.js";
import { SvcError } from "../errors.js";
import type { AppendAck, AppendInput, AppendRecord, Header, ReadBatch, SequencedRecord, StreamPosition } from "../types.js";

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
    code: "out_of_range", origin: "client", retryable: false, sideEffects: false,
    message: `${field} is larger than 2^53 - 1 and cannot be represented exactly`,
  });
}

function checkU64Input(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw outOfRange(field);
  return value;
}

function undecodable(what: string, cause: unknown): SvcError {
  const detail = cause instanceof Error ? `: ${cause.message}` : "";
  return new SvcError({ code: "bad_proto", origin: "client", status: 400, retryable: false, sideEffects: false, message: `undecodable ${what}${detail}`, cause });
}

function decodeWith<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SvcError) throw e;
    throw undecodable(what, e);
  }
}

function headersOut(headers: Header[]): { name?: Uint8Array; value?: Uint8Array }[] {
  return headers.map((h) => ({ name: h.name, value: h.value }));
}

function headersIn(headers: { name?: Uint8Array | null; value?: Uint8Array | null }[] | null | undefined): Header[] {
  if (!headers || headers.length === 0) return [];
  return headers.map((h) => ({ name: h.name ?? EMPTY, value: h.value ?? EMPTY }));
}

const EMPTY = new Uint8Array(0);

function positionOut(p: StreamPosition): { seqNum?: number; timestamp?: number } {
  const out: { seqNum?: number; timestamp?: number } = {};
  if (p.seqNum !== 0) out.seqNum = checkU64Input(p.seqNum, "seq_num");
  if (p.timestamp !== 0) out.timestamp = checkU64Input(p.timestamp, "timestamp");
  return out;
}

function positionIn(p: { seqNum?: U64; timestamp?: U64 } | null | undefined, field: string): StreamPosition {
  return { seqNum: u64(p?.seqNum, `${field}.seq_num`), timestamp: u64(p?.timestamp, `${field}.timestamp`) };
}

function appendRecordOut(r: AppendRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { headers: headersOut(r.headers), body: r.body };
  if (r.timestamp !== undefined) out.timestamp = checkU64Input(r.timestamp, "timestamp");
  return out;
}

export function encodeAppendInput(input: AppendInput): Uint8Array {
  const msg: Record<string, unknown> = { records: input.records.map(appendRecordOut) };
  if (input.matchSeqNum !== undefined) msg.matchSeqNum = checkU64Input(input.matchSeqNum, "match_seq_num");
  if (input.fencingToken !== undefined) msg.fencingToken = input.fencingToken;
  return pb.AppendInput.encode(msg).finish();
}

/**
 * The wire types the schema gives each field (0 varint, 2 length-delimited), and the shape
 * of nested messages. protobufjs reads a known field sent with another wire type as if it
 * were absent (`08 01` became an empty batch); checking first makes it 400 bad_proto.
 */
type Shape = Record<number, { wireType: number; nested?: Shape }>;
const HEADER_SHAPE: Shape = { 1: { wireType: 2 }, 2: { wireType: 2 } };
const RECORD_SHAPE: Shape = { 1: { wireType: 0 }, 2: { wireType: 2, nested: HEADER_SHAPE }, 3: { wireType: 2 } };
const APPEND_INPUT_SHAPE: Shape = { 1: { wireType: 2, nested: RECORD_SHAPE }, 2: { wireType: 0 }, 3: { wireType: 2 } };

function varint(bytes: Uint8Array, at: number, end: number): [number, number] {
  let value = 0;
  for (let shift = 0, i = at; i < end && shift < 64; shift += 7, i++) {
    const b = bytes[i]!;
    if (shift < 49) value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [value, i + 1];
  }
  throw new Error("truncated or overlong varint");
}

/** Checks fields from `start` until `end`, or until the end-group tag of `group`; returns where it stopped. */
function checkWireTypes(bytes: Uint8Array, start: number, end: number, shape: Shape, what: string, group?: number): number {
  let at = start;
  while (at < end) {
    const [tag, next] = varint(bytes, at, end);
    const field = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (wireType === 4) {
      if (field !== group) throw new Error(`${what} has an unmatched end-group tag for field ${field}`);
      return next;
    }
    const want = shape[field];
    if (want && want.wireType !== wireType) throw new Error(`${what} field ${field} has wire type ${wireType}, expected ${want.wireType}`);
    at = next;
    if (wireType === 0) at = varint(bytes, at, end)[1];
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const [length, body] = varint(bytes, at, end);
      if (body + length > end) throw new Error(`${what} field ${field} runs past the end of the message`);
      if (want?.nested) checkWireTypes(bytes, body, body + length, want.nested, `${what}.${field}`);
      at = body + length;
    } else if (wireType === 3) at = checkWireTypes(bytes, at, end, {}, `${what}.${field}`, field); // an unknown group, skipped
    else throw new Error(`${what} field ${field} has unsupported wire type ${wireType}`);
    if (at > end) throw new Error(`${what} is truncated`);
  }
  if (group !== undefined) throw new Error(`${what} has a group without its end tag`);
  return at;
}

export function decodeAppendInput(bytes: Uint8Array): AppendInput {
  const msg = decodeWith("AppendInput", () => {
    checkWireTypes(bytes, 0, bytes.length, APPEND_INPUT_SHAPE, "AppendInput");
    return pb.AppendInput.decode(bytes);
  });
  const records: AppendRecord[] = (msg.records ?? []).map((r) => {
    const rec: AppendRecord = { headers: headersIn(r.headers), body: r.body ?? EMPTY };
    if (r.timestamp !== null && r.timestamp !== undefined) rec.timestamp = u64(r.timestamp as U64, "timestamp");
    return rec;
  });
  const input: AppendInput = { records };
  if (msg.matchSeqNum !== null && msg.matchSeqNum !== undefined) input.matchSeqNum = u64(msg.matchSeqNum as U64, "match_seq_num");
  if (msg.fencingToken !== null && msg.fencingToken !== undefined) input.fencingToken = msg.fencingToken;
  return input;
}

export function encodeAppendAck(ack: AppendAck): Uint8Array {
  return pb.AppendAck.encode({ start: positionOut(ack.start), end: positionOut(ack.end), tail: positionOut(ack.tail) }).finish();
}

export function decodeAppendAck(bytes: Uint8Array): AppendAck {
  const msg = decodeWith("AppendAck", () => pb.AppendAck.decode(bytes));
  return { start: positionIn(msg.start, "start"), end: positionIn(msg.end, "end"), tail: positionIn(msg.tail, "tail") };
}

function sequencedRecordOut(r: SequencedRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { headers: headersOut(r.headers), body: r.body };
  if (r.seqNum !== 0) out.seqNum = checkU64Input(r.seqNum, "seq_num");
  if (r.timestamp !== 0) out.timestamp = checkU64Input(r.timestamp, "timestamp");
  return out;
}

export function encodeReadBatch(batch: ReadBatch): Uint8Array {
  const msg: Record<string, unknown> = { records: batch.records.map(sequencedRecordOut) };
  if (batch.tail !== undefined) msg.tail = positionOut(batch.tail);
  return pb.ReadBatch.encode(msg).finish();
}

export function decodeReadBatch(bytes: Uint8Array): ReadBatch {
  const msg = decodeWith("ReadBatch", () => pb.ReadBatch.decode(bytes));
  const records: SequencedRecord[] = (msg.records ?? []).map((r) => ({
    seqNum: u64(r.seqNum as U64, "seq_num"),
    timestamp: u64(r.timestamp as U64, "timestamp"),
    headers: headersIn(r.headers),
    body: r.body ?? EMPTY,
  }));
  const batch: ReadBatch = { records };
  if (msg.tail !== null && msg.tail !== undefined) batch.tail = positionIn(msg.tail, "tail");
  return batch;
}
