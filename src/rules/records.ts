/**
 * Record and batch rules (protocol.md §8.1, §8.2), judged by svc append for each input line,
 * by the client for each append, and by lite for each append it receives:
 *
 *   metered(record) = 8 + 2 × headers + Σ (len(name) + len(value)) + len(body)
 *   metered(batch)  = Σ metered(record)
 *
 * A batch holds 1..1000 records and at most 1 MiB metered; so does each record, which must
 * also fit one read frame (below). Header names are non-empty, except in a command record,
 * whose command must be valid (commands.ts). A fencing token is at most 36 bytes of UTF-8.
 */

import { varintSize } from "../bytes.js";
import type { Fail } from "../errors.js";
import { type AppendInput, type AppendRecord, type Header, LIMITS } from "../types.js";
import { commandProblem, fencingTokenProblem, isCommandRecord } from "./commands.js";

type RecordShape = { headers: Header[]; body: Uint8Array };

export function meteredSize(record: RecordShape): number {
  let size = 8 + 2 * record.headers.length + record.body.length;
  for (const h of record.headers) size += h.name.length + h.value.length;
  return size;
}

export function meteredBatchSize(records: readonly RecordShape[]): number {
  let total = 0;
  for (const r of records) total += meteredSize(r);
  return total;
}

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

/** A length-delimited protobuf field with a one-byte tag. */
const delimited = (length: number): number => 1 + varintSize(length) + length;

/**
 * The bytes `record` takes in a read at most: one `ReadBatch.records` field holding a
 * SequencedRecord whose seq num and timestamp are as large as svc carries (2^53 − 1).
 */
export function readSize(record: RecordShape): number {
  let size = 2 * (1 + varintSize(Number.MAX_SAFE_INTEGER));
  for (const h of record.headers) {
    size += delimited(
      (h.name.length ? delimited(h.name.length) : 0) + (h.value.length ? delimited(h.value.length) : 0),
    );
  }
  if (record.body.length) size += delimited(record.body.length);
  return delimited(size);
}

/** What is wrong with one record (`what` names it in the message), or undefined. */
export function recordProblem(record: RecordShape, metered = meteredSize(record), what = "record"): string | undefined {
  const fault = recordFault(record, metered);
  return fault === undefined ? undefined : what + fault;
}

/** What is wrong with one record, said after its name (" is 2000000 metered bytes; …"), or undefined. */
function recordFault(record: RecordShape, metered: number): string | undefined {
  if (metered > LIMITS.maxRecordBytes) {
    return ` is ${metered} metered bytes; the limit is ${LIMITS.maxRecordBytes} (1 MiB)`;
  }
  if (readSizeBound(record, metered) > MAX_READ_RECORD_BYTES) {
    const read = readSize(record);
    if (read > MAX_READ_RECORD_BYTES) {
      return ` would take ${read} bytes when read (its ${record.headers.length} headers cost more there than metered); the limit is ${MAX_READ_RECORD_BYTES}, one session frame`;
    }
  }
  if (isCommandRecord(record)) {
    const problem = commandProblem(record);
    return problem === undefined ? undefined : `: ${problem}`;
  }
  if (record.headers.some((h) => h.name.length === 0)) {
    return " has a header with an empty name (only a command record has one: its only header)";
  }
  return undefined;
}

/** Returns the record's metered size; throws `fail(message)` when it breaks a rule. */
export function checkRecord(record: RecordShape, fail: Fail): number {
  const metered = meteredSize(record);
  const problem = recordProblem(record, metered);
  if (problem !== undefined) throw fail(problem);
  return metered;
}

/**
 * Returns the metered size of an append's batch; throws `fail(message)` when it or its fencing
 * token breaks a rule, with the record at fault when one is (its index, and its problem said of
 * it alone, for a caller that knows where the record came from).
 */
export function checkBatch(input: AppendInput, fail: Fail): number {
  const n = input.records.length;
  if (n === 0) throw fail("an append must carry at least one record");
  if (n > LIMITS.maxBatchRecords) throw fail(`an append carries at most ${LIMITS.maxBatchRecords} records (got ${n})`);
  if (input.fencingToken !== undefined) {
    const problem = fencingTokenProblem(input.fencingToken);
    if (problem !== undefined) throw fail(`fencing token ${problem}`);
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r: AppendRecord = input.records[i]!;
    const metered = meteredSize(r);
    const fault = recordFault(r, metered);
    if (fault !== undefined) throw fail(`record ${i}${fault}`, { index: i, problem: `record${fault}` });
    total += metered;
  }
  if (total > LIMITS.maxBatchBytes)
    throw fail(`an append carries at most ${LIMITS.maxBatchBytes} metered bytes (1 MiB); this one is ${total}`);
  return total;
}
