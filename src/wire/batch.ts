/**
 * Batch rules shared by client and server (protocol.md §8.1, §8.2).
 *
 *   metered(record) = 8 + 2 × headers + Σ (len(name) + len(value)) + len(body)
 *   metered(batch)  = Σ metered(record)
 *
 * A batch holds 1..1000 records and at most 1 MiB metered; so does each record. Header names
 * are non-empty except in a command record, whose operation and payload must be valid.
 */
import { SvcError } from "../errors.js";
import type { AppendInput, AppendRecord, Header } from "../types.js";
import { LIMITS } from "../types.js";
import { isCommandRecord, parseCommand } from "./command.js";
import { recordFieldSize, sequencedRecordSize } from "./record-codec.js";

/**
 * The most bytes one record may take in a read: a session frame (2 MiB, its flag byte
 * included) carries a ReadBatch, whose records and tail position must fit. A record of many
 * tiny headers takes up to twice its metered size there, so 1 MiB metered can be too much.
 */
export const MAX_READ_RECORD_BYTES = LIMITS.maxFrameLength - 1 - 64;

/**
 * At least the bytes `record` (of `metered` size) takes in a read, cheaply: a header takes at
 * most 10 bytes more encoded than metered; seq num, timestamp, lengths and tags at most 32 more.
 */
export function readSizeBound(record: { headers: Header[] }, metered: number): number {
  return metered + 10 * record.headers.length + 32;
}

export function meteredSize(record: { headers: Header[]; body: Uint8Array }): number {
  let size = 8 + 2 * record.headers.length + record.body.length;
  for (const h of record.headers) size += h.name.length + h.value.length;
  return size;
}

export function meteredBatchSize(records: readonly { headers: Header[]; body: Uint8Array }[]): number {
  let total = 0;
  for (const r of records) total += meteredSize(r);
  return total;
}

function invalid(message: string): SvcError {
  return new SvcError({ code: "invalid", message, origin: "client", status: 422, retryable: false, sideEffects: false });
}

/** Checks one record: size, header names, and the command it carries, if any. */
export function validateRecord(record: AppendRecord, index = 0): number {
  const size = meteredSize(record);
  if (size > LIMITS.maxRecordBytes) {
    throw invalid(`record ${index} is ${size} metered bytes; the limit is ${LIMITS.maxRecordBytes}`);
  }
  if (readSizeBound(record, size) > MAX_READ_RECORD_BYTES) {
    const encoded = recordFieldSize(sequencedRecordSize({ seqNum: Number.MAX_SAFE_INTEGER, timestamp: Number.MAX_SAFE_INTEGER, headers: record.headers, body: record.body }));
    if (encoded > MAX_READ_RECORD_BYTES) {
      throw invalid(`record ${index} would take ${encoded} bytes when read (its ${record.headers.length} headers cost more there than metered); the limit is ${MAX_READ_RECORD_BYTES}, one session frame`);
    }
  }
  if (isCommandRecord(record)) {
    parseCommand(record);
  } else {
    for (const h of record.headers) if (h.name.length === 0) throw invalid("invalid header: empty name");
  }
  return size;
}

/** Throws `invalid` (422) when the input breaks a batch rule; returns the metered size. */
export function validateAppendInput(input: AppendInput): number {
  const n = input.records.length;
  if (n === 0) throw invalid("record batch must not be empty");
  if (n > LIMITS.maxBatchRecords) throw invalid(`record batch has ${n} records; the limit is ${LIMITS.maxBatchRecords}`);
  if (input.fencingToken !== undefined && Buffer.byteLength(input.fencingToken, "utf8") > LIMITS.maxFencingTokenBytes) {
    throw invalid(`fencing token must be at most ${LIMITS.maxFencingTokenBytes} bytes`);
  }
  let total = 0;
  for (let i = 0; i < n; i++) total += validateRecord(input.records[i]!, i);
  if (total > LIMITS.maxBatchBytes) throw invalid(`record batch is ${total} metered bytes; the limit is ${LIMITS.maxBatchBytes}`);
  return total;
}
