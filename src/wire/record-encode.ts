/**
 * The record-carrying messages (AppendInput, ReadBatch) encoded by hand, in one pass each;
 * record-decode.ts reads them. They carry every byte users store, so they are the data path:
 * the generated protobufjs code built an object per field and left the frame to be copied
 * once more. The bytes are the same protobuf (protocol.md §5; the field table is in
 * proto.ts), held to the generated code by test/unit/wire/proto.test.ts.
 *
 * Encoding writes straight into one buffer that can keep `reserve` bytes in front, so a
 * session frame's 4-byte head costs no copy of the message. Fields are written as proto.ts's
 * table says (implicit-presence ones omitted when zero or empty, `optional` ones whenever
 * set); a u64 that is not a safe non-negative integer is a U64RangeError (`out_of_range`).
 */
import { varintSize } from "../bytes.js";
import type { AppendInput, AppendRecord, Header, ReadBatch, SequencedRecord, StreamPosition } from "../types.js";
import { U64RangeError } from "./record-decode.js";

/** Writes `n` (a safe non-negative integer) as a varint at `at`; returns the end. */
function writeVarint(out: Uint8Array, at: number, n: number): number {
  while (n >= 128) {
    out[at++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

/** Size of a length-delimited field (tag, length, body) with a one-byte tag. */
const delimitedSize = (length: number): number => 1 + varintSize(length) + length;

function headersSize(headers: Header[]): number {
  let size = 0;
  for (const h of headers) {
    const inner =
      (h.name.length ? delimitedSize(h.name.length) : 0) + (h.value.length ? delimitedSize(h.value.length) : 0);
    size += delimitedSize(inner);
  }
  return size;
}

function writeBytesField(out: Uint8Array, at: number, tag: number, bytes: Uint8Array): number {
  out[at++] = tag;
  at = writeVarint(out, at, bytes.length);
  out.set(bytes, at);
  return at + bytes.length;
}

function writeHeaders(out: Uint8Array, at: number, tag: number, headers: Header[]): number {
  for (const h of headers) {
    out[at++] = tag;
    at = writeVarint(
      out,
      at,
      (h.name.length ? delimitedSize(h.name.length) : 0) + (h.value.length ? delimitedSize(h.value.length) : 0),
    );
    if (h.name.length) at = writeBytesField(out, at, 10, h.name);
    if (h.value.length) at = writeBytesField(out, at, 18, h.value);
  }
  return at;
}

function checkU64(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new U64RangeError(field);
  return value;
}

function appendRecordSize(r: AppendRecord): number {
  return (
    (r.timestamp !== undefined ? 1 + varintSize(checkU64(r.timestamp, "timestamp")) : 0) +
    headersSize(r.headers) +
    (r.body.length ? delimitedSize(r.body.length) : 0)
  );
}

/** AppendInput bytes after `reserve` free bytes (for a frame head). */
export function encodeAppendInputBytes(input: AppendInput, reserve = 0): Buffer {
  const sizes = new Array<number>(input.records.length);
  let size = 0;
  for (let i = 0; i < input.records.length; i++) {
    const s = appendRecordSize(input.records[i]!);
    sizes[i] = s;
    size += delimitedSize(s);
  }
  const token = input.fencingToken !== undefined ? Buffer.from(input.fencingToken, "utf8") : undefined;
  if (input.matchSeqNum !== undefined) size += 1 + varintSize(checkU64(input.matchSeqNum, "match_seq_num"));
  if (token) size += delimitedSize(token.length);
  const out = Buffer.allocUnsafe(reserve + size);
  let at = reserve;
  for (let i = 0; i < input.records.length; i++) {
    const r = input.records[i]!;
    out[at++] = 10;
    at = writeVarint(out, at, sizes[i]!);
    if (r.timestamp !== undefined) {
      out[at++] = 8;
      at = writeVarint(out, at, r.timestamp);
    }
    at = writeHeaders(out, at, 18, r.headers);
    if (r.body.length) at = writeBytesField(out, at, 26, r.body);
  }
  if (input.matchSeqNum !== undefined) {
    out[at++] = 16;
    at = writeVarint(out, at, input.matchSeqNum);
  }
  if (token) at = writeBytesField(out, at, 26, token);
  return out;
}

function positionSize(p: StreamPosition, field: string): number {
  return (
    (p.seqNum !== 0 ? 1 + varintSize(checkU64(p.seqNum, `${field}.seq_num`)) : 0) +
    (p.timestamp !== 0 ? 1 + varintSize(checkU64(p.timestamp, `${field}.timestamp`)) : 0)
  );
}

/** Bytes of a SequencedRecord message (without the tag and length of the field holding it). */
export function sequencedRecordSize(r: SequencedRecord): number {
  return (
    (r.seqNum !== 0 ? 1 + varintSize(checkU64(r.seqNum, "seq_num")) : 0) +
    (r.timestamp !== 0 ? 1 + varintSize(checkU64(r.timestamp, "timestamp")) : 0) +
    headersSize(r.headers) +
    (r.body.length ? delimitedSize(r.body.length) : 0)
  );
}

/** Bytes of `r` as one `ReadBatch.records` field (tag, length, message), given its `size`. */
export const recordFieldSize = delimitedSize;

/**
 * Writes `r` as one `ReadBatch.records` field at `at` (its message is `size` bytes, from
 * sequencedRecordSize); returns the end. Stored batches keep records in exactly this form
 * (lite's batch-codec.ts), so a catch-up read copies them into a frame without re-encoding.
 */
export function writeRecordField(out: Uint8Array, at: number, r: SequencedRecord, size: number): number {
  out[at++] = 10;
  at = writeVarint(out, at, size);
  if (r.seqNum !== 0) {
    out[at++] = 8;
    at = writeVarint(out, at, r.seqNum);
  }
  if (r.timestamp !== 0) {
    out[at++] = 16;
    at = writeVarint(out, at, r.timestamp);
  }
  at = writeHeaders(out, at, 26, r.headers);
  if (r.body.length) at = writeBytesField(out, at, 34, r.body);
  return at;
}

/**
 * ReadBatch bytes after `reserve` free bytes (for a frame head). A batch that carries its
 * records already encoded (`encoded`) is copied, not encoded again.
 */
export function encodeReadBatchBytes(batch: ReadBatch, reserve = 0): Buffer {
  const encoded = batch.encoded;
  const sizes = encoded ? undefined : new Array<number>(batch.records.length);
  let size = 0;
  if (encoded) for (const chunk of encoded) size += chunk.length;
  else {
    for (let i = 0; i < batch.records.length; i++) {
      const s = sequencedRecordSize(batch.records[i]!);
      sizes![i] = s;
      size += delimitedSize(s);
    }
  }
  const tailSize = batch.tail !== undefined ? positionSize(batch.tail, "tail") : -1;
  if (tailSize >= 0) size += delimitedSize(tailSize);
  const out = Buffer.allocUnsafe(reserve + size);
  let at = reserve;
  if (encoded) {
    for (const chunk of encoded) {
      out.set(chunk, at);
      at += chunk.length;
    }
  } else {
    for (let i = 0; i < batch.records.length; i++) at = writeRecordField(out, at, batch.records[i]!, sizes![i]!);
  }
  if (batch.tail !== undefined) {
    out[at++] = 18;
    at = writeVarint(out, at, tailSize);
    if (batch.tail.seqNum !== 0) {
      out[at++] = 8;
      at = writeVarint(out, at, batch.tail.seqNum);
    }
    if (batch.tail.timestamp !== 0) {
      out[at++] = 16;
      at = writeVarint(out, at, batch.tail.timestamp);
    }
  }
  return out;
}
