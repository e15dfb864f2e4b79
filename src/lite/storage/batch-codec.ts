/**
 * Binary encoding of a stored batch (one lmdb or PostgreSQL value per appended batch).
 *
 * Version 2, written now: the records are kept as the bytes a read sends, so a catch-up read
 * copies runs of them into its frame instead of decoding and re-encoding every record (what
 * bounded catch-up reads of version 1).
 *
 *   u8  version (2)
 *   f64 arrival ms · f64 last timestamp · u32 record count        (big-endian, as in version 1)
 *   the index, per record: f64 timestamp · u32 metered size · u32 end           (little-endian)
 *   the records: each one `ReadBatch.records` field (tag, length, SequencedRecord message:
 *     seq num, timestamp, headers, body), in order; a record's `end` is where its field ends,
 *     counted from the first record's start
 *
 * Version 1 (data dirs written before; still read):
 *   u8  version (1) · f64 arrival ms · f64 last timestamp · u32 record count
 *   per record: f64 timestamp · u32 header count
 *               · per header: u32 name length, name, u32 value length, value
 *               · u32 body length, body
 *
 * Seq nums: record i has firstSeq + i (firstSeq is in the key); version 2 also carries them in
 * the records, and decoding checks that they agree. Numbers are safe integers, which float64
 * holds exactly. Decoded byte fields are views into the value (lmdb hands out a private copy
 * per read), so decoding copies nothing.
 */

import { meteredBatchSize, meteredSize } from "../../rules/records.js";
import type { Header, SequencedRecord } from "../../types.js";
import { decodeReadBatchBytes } from "../../wire/record-decode.js";
import { recordFieldSize, sequencedRecordSize, writeRecordField } from "../../wire/record-encode.js";
import type { StoredBatch, StoredWire } from "./types.js";

const V1 = 1;
const V2 = 2;
const HEAD = 1 + 8 + 8 + 4;
/** How many leading bytes of a value `batchHeader` reads (both versions). */
export const BATCH_HEAD_BYTES = HEAD;
const INDEX_ENTRY = 16;
/** Bytes per record of a version-2 value's index. */
export const BATCH_INDEX_ENTRY_BYTES = INDEX_ENTRY;

export function encodeBatch(batch: StoredBatch): Buffer {
  const records = batch.records;
  const n = records.length;
  const sizes = new Array<number>(n);
  let region = 0;
  for (let i = 0; i < n; i++) {
    const s = sequencedRecordSize(records[i]!);
    sizes[i] = s;
    region += recordFieldSize(s);
  }
  const recordsAt = HEAD + n * INDEX_ENTRY;
  const out = Buffer.allocUnsafe(recordsAt + region);
  out[0] = V2;
  out.writeDoubleBE(batch.arrival, 1);
  out.writeDoubleBE(batch.lastTimestamp, 9);
  out.writeUInt32BE(n, 17);
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  let at = recordsAt;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    at = writeRecordField(out, at, r, sizes[i]!);
    const entry = HEAD + i * INDEX_ENTRY;
    view.setFloat64(entry, r.timestamp, true);
    view.setUint32(entry + 8, meteredSize(r), true);
    view.setUint32(entry + 12, at - recordsAt, true);
  }
  return out;
}

/** Reads the header fields without decoding records. */
export function batchHeader(value: Uint8Array): { arrival: number; lastTimestamp: number; count: number } {
  const buf = asBuffer(value);
  if (buf[0] !== V1 && buf[0] !== V2) throw new Error(`unknown stored batch version ${buf[0]}`);
  return { arrival: buf.readDoubleBE(1), lastTimestamp: buf.readDoubleBE(9), count: buf.readUInt32BE(17) };
}

/**
 * The metered size (rules/records.ts) of all records of a stored value, from its index alone
 * in version 2 (`value` may stop after the index: BATCH_HEAD_BYTES + count ×
 * BATCH_INDEX_ENTRY_BYTES), decoded in version 1.
 */
export function meteredOfValue(value: Uint8Array): number {
  const buf = asBuffer(value);
  const { count } = batchHeader(buf);
  if (buf[0] === V1) return meteredBatchSize(decodeBatch(0, buf).records);
  let total = 0;
  for (let i = 0; i < count; i++) total += buf.readUInt32LE(HEAD + i * INDEX_ENTRY + 8);
  return total;
}

/** The records of a version-2 value, by index: what a catch-up read needs without decoding them. */
class WireRecords implements StoredWire {
  private readonly view: DataView;
  private readonly recordsAt: number;

  constructor(
    private readonly buf: Buffer,
    readonly count: number,
    firstSeq: number,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.length);
    this.recordsAt = HEAD + count * INDEX_ENTRY;
    if (this.recordsAt > buf.length || this.recordsAt + this.offset(count) !== buf.length) {
      throw new Error(`stored batch at seq ${firstSeq} is corrupt (its index does not match its ${buf.length} bytes)`);
    }
  }

  timestamp(i: number): number {
    return this.view.getFloat64(HEAD + i * INDEX_ENTRY, true);
  }

  metered(i: number): number {
    return this.view.getUint32(HEAD + i * INDEX_ENTRY + 8, true);
  }

  encoded(i: number): number {
    return this.offset(i + 1) - this.offset(i);
  }

  /** Where record i's field starts, from the first record's start (the end of record i - 1). */
  private offset(i: number): number {
    return i === 0 ? 0 : this.view.getUint32(HEAD + (i - 1) * INDEX_ENTRY + 12, true);
  }

  slice(from: number, to: number): Uint8Array {
    const start = this.offset(from);
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset + this.recordsAt + start, this.offset(to) - start);
  }
}

/** A version-2 batch: records are decoded from their wire bytes only when asked for. */
class WireBatch implements StoredBatch {
  private decoded: SequencedRecord[] | undefined;

  constructor(
    readonly firstSeq: number,
    readonly arrival: number,
    readonly lastTimestamp: number,
    readonly wire: WireRecords,
  ) {}

  get records(): SequencedRecord[] {
    return (this.decoded ??= decodeWireRecords(this.firstSeq, this.wire));
  }
}

function decodeWireRecords(firstSeq: number, wire: WireRecords): SequencedRecord[] {
  let records: SequencedRecord[];
  try {
    records = decodeReadBatchBytes(wire.slice(0, wire.count)).records;
  } catch (e) {
    throw new Error(`stored batch at seq ${firstSeq} is corrupt (${(e as Error).message})`);
  }
  if (records.length !== wire.count)
    throw new Error(
      `stored batch at seq ${firstSeq} is corrupt (${records.length} records, the index says ${wire.count})`,
    );
  for (let i = 0; i < records.length; i++) {
    if (records[i]!.seqNum !== firstSeq + i)
      throw new Error(`stored batch at seq ${firstSeq} is corrupt (record ${i} says seq ${records[i]!.seqNum})`);
  }
  return records;
}

/** Records without headers share this (read-only by convention: nothing mutates a record). */
const NO_HEADERS: Header[] = [];

export function decodeBatch(firstSeq: number, value: Uint8Array): StoredBatch {
  const buf = asBuffer(value);
  const { arrival, lastTimestamp, count } = batchHeader(buf);
  if (buf[0] === V2) return new WireBatch(firstSeq, arrival, lastTimestamp, new WireRecords(buf, count, firstSeq));
  const records: SequencedRecord[] = new Array(count);
  // Byte fields are plain Uint8Array views: half the cost of Buffer#subarray, which builds a
  // Buffer subclass per call (a catch-up read makes one per record).
  const ab = buf.buffer;
  const base = buf.byteOffset;
  let at = HEAD;
  for (let i = 0; i < count; i++) {
    const timestamp = buf.readDoubleBE(at);
    const headerCount = buf.readUInt32BE(at + 8);
    at += 12;
    const headers: Header[] = headerCount === 0 ? NO_HEADERS : new Array(headerCount);
    for (let h = 0; h < headerCount; h++) {
      const nameLen = buf.readUInt32BE(at);
      const name = new Uint8Array(ab, base + at + 4, nameLen);
      at += 4 + nameLen;
      const valueLen = buf.readUInt32BE(at);
      const val = new Uint8Array(ab, base + at + 4, valueLen);
      at += 4 + valueLen;
      headers[h] = { name, value: val };
    }
    const bodyLen = buf.readUInt32BE(at);
    if (at + 4 + bodyLen > buf.length)
      throw new Error(`stored batch at seq ${firstSeq} is corrupt (record ${i} runs past the end)`);
    const body = new Uint8Array(ab, base + at + 4, bodyLen);
    at += 4 + bodyLen;
    records[i] = { seqNum: firstSeq + i, timestamp, headers, body };
  }
  if (at !== buf.length) throw new Error(`stored batch at seq ${firstSeq} is corrupt (${buf.length - at} stray bytes)`);
  return { firstSeq, arrival, lastTimestamp, records };
}

/**
 * A value stored by the PostgreSQL sequencer (storage/pg/sequencer-sql.ts): encoded with the
 * seq nums its node planned (`planned`), it landed at `first`, and none of its timestamps may
 * be below `floor` (the stream's last timestamp when it landed). When the plan held, which is
 * the rule with one writer per stream, the value is served as it is; otherwise its records are
 * given their seq nums and timestamps and encoded again.
 */
export function decodeLanded(first: number, planned: number, floor: number, value: Uint8Array): StoredBatch {
  const b = decodeBatch(planned, value);
  const lowest = b.wire ? (b.wire.count > 0 ? b.wire.timestamp(0) : 0) : (b.records[0]?.timestamp ?? 0);
  if (planned === first && floor <= lowest) return b;
  const records = b.records.map((r, i) => ({ ...r, seqNum: first + i, timestamp: Math.max(floor, r.timestamp) }));
  return decodeBatch(
    first,
    encodeBatch({ firstSeq: first, arrival: b.arrival, lastTimestamp: Math.max(floor, b.lastTimestamp), records }),
  );
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}
