/**
 * The record-carrying messages (AppendInput, ReadBatch) decoded by hand, in one pass each;
 * record-encode.ts writes them. They carry every byte users store, so they are the data path:
 * the generated protobufjs code built an object per field and needed a second pass to check
 * wire types. The bytes are the same protobuf (protocol.md §5; the field table is in
 * proto.ts); test/unit/wire/proto.test.ts holds both modules to the generated code: shared
 * vectors, and random messages both ways.
 *
 * Decoding rules, as the generated code has them: unknown fields are skipped by wire type
 * (groups too); the last value of a non-repeated field wins; a known field with another wire
 * type is an error (protobufjs would read it as absent); bytes fields are views into the
 * input, never copies. u64 fields decode to safe integers or fail with `out_of_range`.
 */
import type { AppendInput, AppendRecord, Header, ReadBatch, SequencedRecord, StreamPosition } from "../types.js";

const EMPTY: Uint8Array = new Uint8Array(0);
// ignoreBOM: a string field that starts with U+FEFF keeps it (a fencing token is compared exactly).
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Thrown for malformed bytes; proto.ts turns it into 400 `bad_proto`. */
class ProtoError extends Error {}

/** Thrown for a u64 beyond 2^53 - 1 (decoded, or given to record-encode.ts); proto.ts turns it into `out_of_range`. */
export class U64RangeError extends Error {
  constructor(readonly field: string) {
    super(`${field} is larger than 2^53 - 1`);
  }
}

/** A cursor over one message; `pos` advances as fields are read. */
class Reader {
  pos: number;
  /** The end of the message being read; nested messages narrow it (see `enter`). */
  end: number;
  constructor(
    readonly buf: Uint8Array,
    start: number,
    end: number,
  ) {
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
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        break;
      case 5:
        this.pos += 4;
        break;
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
      case 4:
        throw new ProtoError(`${what} has an unmatched end-group tag for field ${field}`);
      default:
        throw new ProtoError(`${what} field ${field} has unsupported wire type ${wireType}`);
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
    if (want !== undefined && want >= 0 && want !== wireType)
      throw new ProtoError(`${what} field ${field} has wire type ${wireType}, expected ${want}`);
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
