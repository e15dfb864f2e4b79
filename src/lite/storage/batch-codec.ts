/**
 * Binary encoding of a stored batch (one lmdb value per appended batch):
 *
 *   u8  version (1)
 *   f64 arrival ms · f64 last timestamp · u32 record count
 *   per record: f64 timestamp · u32 header count
 *               · per header: u32 name length, name, u32 value length, value
 *               · u32 body length, body
 *
 * Seq nums are implied: record i has firstSeq + i (firstSeq is in the key). Numbers are safe
 * integers, which float64 holds exactly. Decoded byte fields are views into the value buffer
 * (lmdb hands out a private copy per read), so decoding copies nothing.
 */
import type { Header, SequencedRecord } from "../../types.js";
import type { StoredBatch } from "./storage.js";

const VERSION = 1;
const HEAD = 1 + 8 + 8 + 4;

export function encodeBatch(batch: StoredBatch): Buffer {
  let size = HEAD;
  for (const r of batch.records) {
    size += 8 + 4 + 4 + r.body.length;
    for (const h of r.headers) size += 8 + h.name.length + h.value.length;
  }
  const out = Buffer.allocUnsafe(size);
  out[0] = VERSION;
  out.writeDoubleBE(batch.arrival, 1);
  out.writeDoubleBE(batch.lastTimestamp, 9);
  out.writeUInt32BE(batch.records.length, 17);
  let at = HEAD;
  for (const r of batch.records) {
    out.writeDoubleBE(r.timestamp, at);
    out.writeUInt32BE(r.headers.length, at + 8);
    at += 12;
    for (const h of r.headers) {
      at = writeBytes(out, at, h.name);
      at = writeBytes(out, at, h.value);
    }
    at = writeBytes(out, at, r.body);
  }
  return out;
}

function writeBytes(out: Buffer, at: number, bytes: Uint8Array): number {
  out.writeUInt32BE(bytes.length, at);
  out.set(bytes, at + 4);
  return at + 4 + bytes.length;
}

/** Reads the header fields without decoding records. */
export function batchHeader(value: Uint8Array): { arrival: number; lastTimestamp: number; count: number } {
  const buf = asBuffer(value);
  if (buf[0] !== VERSION) throw new Error(`unknown stored batch version ${buf[0]}`);
  return { arrival: buf.readDoubleBE(1), lastTimestamp: buf.readDoubleBE(9), count: buf.readUInt32BE(17) };
}

/** Records without headers share this (read-only by convention: nothing mutates a record). */
const NO_HEADERS: Header[] = [];

export function decodeBatch(firstSeq: number, value: Uint8Array): StoredBatch {
  const buf = asBuffer(value);
  const { arrival, lastTimestamp, count } = batchHeader(buf);
  const records: SequencedRecord[] = new Array(count);
  // Byte fields are plain Uint8Array views: half the cost of Buffer#subarray, which builds a
  // Buffer subclass per call (a catch-up read makes one per record: issue 13).
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
    if (at + 4 + bodyLen > buf.length) throw new Error(`stored batch at seq ${firstSeq} is corrupt (record ${i} runs past the end)`);
    const body = new Uint8Array(ab, base + at + 4, bodyLen);
    at += 4 + bodyLen;
    records[i] = { seqNum: firstSeq + i, timestamp, headers, body };
  }
  if (at !== buf.length) throw new Error(`stored batch at seq ${firstSeq} is corrupt (${buf.length - at} stray bytes)`);
  return { firstSeq, arrival, lastTimestamp, records };
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}
