/**
 * The record-carrying messages (AppendInput, ReadBatch) encoded and decoded by hand, in one
 * pass each. They carry every byte users store, so they are the data path: the
 * generated protobufjs code built an object per field, needed a second pass to check wire
 * types, and left the frame to be copied once more. The bytes are the same protobuf
 * (protocol.md §5; the field table is in proto.ts); test/unit/wire/proto.test.ts holds this
 * module to the generated code: shared vectors, and random messages both ways.
 *
 * Decoding rules, as the generated code has them: unknown fields are skipped by wire type
 * (groups too); the last value of a non-repeated field wins; a known field with another wire
 * type is an error (protobufjs would read it as absent); bytes fields are views into the
 * input, never copies. u64 fields decode to safe integers or fail with `out_of_range`.
 *
 * Encoding writes straight into one buffer that can keep `reserve` bytes in front, so a
 * session frame's 4-byte head costs no copy of the message.
 */
import { varintSize } from "../bytes.js";
import type { AppendInput, AppendRecord, Header, ReadBatch, SequencedRecord, StreamPosition } from "../types.js";

const EMPTY: Uint8Array = new Uint8Array(0);
// ignoreBOM: a string field that starts with U+FEFF keeps it (a fencing token is compared exactly).
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Thrown for malformed bytes; proto.ts turns it into 400 `bad_proto`. */
export class ProtoError extends Error {}

/** Thrown for a u64 beyond 2^53 - 1; proto.ts turns it into `out_of_range`. */
export class U64RangeError extends Error {
  constructor(readonly field: string) {
    super(`${field} is larger than 2^53 - 1`);
  }
}

// ---------------------------------------------------------------- decoding

/** A cursor over one message; `pos` advances as fields are read. */
class Reader {
  pos: number;
  /** The end of the message being read; nested messages narrow it (see `within`). */
  end: number;
  constructor(readonly buf: Uint8Array, start: number, end: number) {
    this.end = end;
    this.pos = start;
  }

  /**
   * Narrows the reader to a nested message of `length` bytes (one reader serves every level:
   * no object per record); returns the end to give back to `leave`. On an error the whole
   * decode is abandoned, so there is nothing to restore.
   */
  enter(length: number): number {
    const outer = this.end;
    this.end = this.pos + length;
    return outer;
  }

  /** Continues after the nested message entered with `enter`. */
  leave(outer: number): void {
    this.pos = this.end;
    this.end = outer;
  }

  /** A varint of at most 10 bytes as a number; exact below 2^53, `tooBig` set above. */
  varint(): number {
    const buf = this.buf;
    let value = 0;
    let scale = 1;
    this.tooBig = false;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtoError("truncated varint");
      const b = buf[this.pos++]!;
      const low = b & 0x7f;
      if (i < 7) value += low * scale;
      else if (i === 7) {
        // bits 49..55: only bits 49..52 fit in a safe integer
        value += (low & 0x0f) * scale;
        if (low > 0x0f) this.tooBig = true;
      } else if (low !== 0) this.tooBig = true;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new ProtoError("varint longer than 10 bytes");
  }

  tooBig = false;

  /** A u64 field's value, or U64RangeError. */
  u64(field: string): number {
    const v = this.varint();
    if (this.tooBig) throw new U64RangeError(field);
    return v;
  }

  /** The bounds of a length-delimited field's body. */
  delimited(what: string): number {
    const length = this.varint();
    if (this.tooBig || this.pos + length > this.end) throw new ProtoError(`${what} runs past the end of the message`);
    return length;
  }

  bytes(what: string): Uint8Array {
    const length = this.delimited(what);
    const out = length === 0 ? EMPTY : this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  /** Skips a field of an unknown number. */
  skip(wireType: number, field: number, what: string, depth = 0): void {
    switch (wireType) {
      case 0: this.varint(); return;
      case 1: this.pos += 8; break;
      case 5: this.pos += 4; break;
      case 2: {
        const length = this.delimited(`${what} field ${field}`); // read before pos is used
        this.pos += length;
        return;
      }
      case 3: {
        if (depth > 32) throw new ProtoError(`${what} nests groups too deeply`);
        for (;;) {
          if (this.pos >= this.end) throw new ProtoError(`${what} has a group without its end tag`);
          const tag = this.varint();
          const wt = tag & 7;
          const f = Math.floor(tag / 8);
          if (wt === 4) {
            if (f !== field) throw new ProtoError(`${what} has an unmatched end-group tag for field ${f}`);
            return;
          }
          this.skip(wt, f, what, depth + 1);
        }
      }
      case 4: throw new ProtoError(`${what} has an unmatched end-group tag for field ${field}`);
      default: throw new ProtoError(`${what} field ${field} has unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw new ProtoError(`${what} is truncated`);
  }

  /** The next field's tag as [field, wireType]; checks a known field's wire type. */
  tag(what: string, wireTypes: readonly number[]): number {
    const tag = this.varint();
    if (this.tooBig) throw new ProtoError(`${what} has an invalid tag`);
    const field = Math.floor(tag / 8);
    const wireType = tag & 7;
    const want = wireTypes[field];
    if (want !== undefined && want >= 0 && want !== wireType) throw new ProtoError(`${what} field ${field} has wire type ${wireType}, expected ${want}`);
    return tag;
  }
}

// Wire types by field number: 0 varint, 2 length-delimited.
const HEADER_WT = [-1, 2, 2];
const APPEND_RECORD_WT = [-1, 0, 2, 2];
const APPEND_INPUT_WT = [-1, 2, 0, 2];
const SEQUENCED_RECORD_WT = [-1, 0, 0, 2, 2];
const READ_BATCH_WT = [-1, 2, 2];
const POSITION_WT = [-1, 0, 0];

function header(r: Reader): Header {
  let name = EMPTY;
  let value = EMPTY;
  while (r.pos < r.end) {
    const tag = r.tag("Header", HEADER_WT);
    if (tag === 10) name = r.bytes("Header.name");
    else if (tag === 18) value = r.bytes("Header.value");
    else r.skip(tag & 7, Math.floor(tag / 8), "Header");
  }
  return { name, value };
}

function appendRecord(r: Reader): AppendRecord {
  let timestamp: number | undefined;
  const headers: Header[] = [];
  let body = EMPTY;
  while (r.pos < r.end) {
    const tag = r.tag("AppendRecord", APPEND_RECORD_WT);
    if (tag === 26) body = r.bytes("AppendRecord.body");
    else if (tag === 8) timestamp = r.u64("timestamp");
    else if (tag === 18) {
      const outer = r.enter(r.delimited("AppendRecord.headers"));
      headers.push(header(r));
      r.leave(outer);
    } else r.skip(tag & 7, Math.floor(tag / 8), "AppendRecord");
  }
  const rec: AppendRecord = { headers, body };
  if (timestamp !== undefined) rec.timestamp = timestamp;
  return rec;
}

export function decodeAppendInputBytes(bytes: Uint8Array): AppendInput {
  const r = new Reader(bytes, 0, bytes.length);
  const records: AppendRecord[] = [];
  let matchSeqNum: number | undefined;
  let fencingToken: string | undefined;
  while (r.pos < r.end) {
    const tag = r.tag("AppendInput", APPEND_INPUT_WT);
    if (tag === 10) {
      const outer = r.enter(r.delimited("AppendInput.records"));
      records.push(appendRecord(r));
      r.leave(outer);
    } else if (tag === 16) matchSeqNum = r.u64("match_seq_num");
    else if (tag === 26) {
      const b = r.bytes("AppendInput.fencing_token");
      try {
        fencingToken = UTF8.decode(b);
      } catch {
        throw new ProtoError("AppendInput.fencing_token is not valid UTF-8");
      }
    } else r.skip(tag & 7, Math.floor(tag / 8), "AppendInput");
  }
  const input: AppendInput = { records };
  if (matchSeqNum !== undefined) input.matchSeqNum = matchSeqNum;
  if (fencingToken !== undefined) input.fencingToken = fencingToken;
  return input;
}

/** A StreamPosition; one seen before (`prev`) is merged into, as protobuf does. */
function position(r: Reader, field: string, prev?: StreamPosition): StreamPosition {
  let seqNum = prev?.seqNum ?? 0;
  let timestamp = prev?.timestamp ?? 0;
  while (r.pos < r.end) {
    const tag = r.tag("StreamPosition", POSITION_WT);
    if (tag === 8) seqNum = r.u64(`${field}.seq_num`);
    else if (tag === 16) timestamp = r.u64(`${field}.timestamp`);
    else r.skip(tag & 7, Math.floor(tag / 8), "StreamPosition");
  }
  return { seqNum, timestamp };
}

function sequencedRecord(r: Reader): SequencedRecord {
  let seqNum = 0;
  let timestamp = 0;
  const headers: Header[] = [];
  let body = EMPTY;
  while (r.pos < r.end) {
    const tag = r.tag("SequencedRecord", SEQUENCED_RECORD_WT);
    if (tag === 34) body = r.bytes("SequencedRecord.body");
    else if (tag === 8) seqNum = r.u64("seq_num");
    else if (tag === 16) timestamp = r.u64("timestamp");
    else if (tag === 26) {
      const outer = r.enter(r.delimited("SequencedRecord.headers"));
      headers.push(header(r));
      r.leave(outer);
    } else r.skip(tag & 7, Math.floor(tag / 8), "SequencedRecord");
  }
  return { seqNum, timestamp, headers, body };
}

export function decodeReadBatchBytes(bytes: Uint8Array): ReadBatch {
  const r = new Reader(bytes, 0, bytes.length);
  const records: SequencedRecord[] = [];
  let tail: StreamPosition | undefined;
  while (r.pos < r.end) {
    const tag = r.tag("ReadBatch", READ_BATCH_WT);
    if (tag === 10) {
      const outer = r.enter(r.delimited("ReadBatch.records"));
      records.push(sequencedRecord(r));
      r.leave(outer);
    } else if (tag === 18) {
      const outer = r.enter(r.delimited("ReadBatch.tail"));
      tail = position(r, "tail", tail);
      r.leave(outer);
    } else r.skip(tag & 7, Math.floor(tag / 8), "ReadBatch");
  }
  const batch: ReadBatch = { records };
  if (tail !== undefined) batch.tail = tail;
  return batch;
}

// ---------------------------------------------------------------- encoding

/** Bytes a varint of `n` (a safe non-negative integer) takes. */
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
    const inner = (h.name.length ? delimitedSize(h.name.length) : 0) + (h.value.length ? delimitedSize(h.value.length) : 0);
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
    at = writeVarint(out, at, (h.name.length ? delimitedSize(h.name.length) : 0) + (h.value.length ? delimitedSize(h.value.length) : 0));
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
  return (r.timestamp !== undefined ? 1 + varintSize(checkU64(r.timestamp, "timestamp")) : 0) + headersSize(r.headers) + (r.body.length ? delimitedSize(r.body.length) : 0);
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
  return (p.seqNum !== 0 ? 1 + varintSize(checkU64(p.seqNum, `${field}.seq_num`)) : 0) + (p.timestamp !== 0 ? 1 + varintSize(checkU64(p.timestamp, `${field}.timestamp`)) : 0);
}

/** Bytes of a SequencedRecord message (without the tag and length of the field holding it). */
export function sequencedRecordSize(r: SequencedRecord): number {
  return (r.seqNum !== 0 ? 1 + varintSize(checkU64(r.seqNum, "seq_num")) : 0)
    + (r.timestamp !== 0 ? 1 + varintSize(checkU64(r.timestamp, "timestamp")) : 0)
    + headersSize(r.headers) + (r.body.length ? delimitedSize(r.body.length) : 0);
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
