/**
 * JSON shapes of records, appends and reads (protocol.md §3.3) and `svc-format` (§4).
 *
 *   AppendRecord    {"timestamp"?: u64|null, "headers"?: [[name, value], ...], "body"?: string}
 *   AppendInput     {"records": AppendRecord[], "match_seq_num"?: u64|null, "fencing_token"?: string|null}
 *   AppendAck       {"start": Pos, "end": Pos, "tail": Pos}       Pos = {"seq_num": u64, "timestamp": u64}
 *   SequencedRecord {"seq_num", "timestamp", "headers"?, "body"?}  (empty headers/body omitted)
 *   ReadBatch       {"records": SequencedRecord[], "tail"?: Pos}
 *
 * Byte fields (header names, values, bodies) are `raw` (the string's UTF-8; output decoded
 * lossily, one U+FFFD per maximal invalid run) or `base64` (standard alphabet, padded, strict).
 * Shape errors are `bad_json` (400); bad base64 is `invalid` (422). Integers beyond 2^53 − 1
 * are refused rather than rounded.
 */

import { decodeBytes, encodeBytes, roundedIntegerLiteral, unsafeIntegerLiteral } from "../bytes.js";
import { SvcError } from "../errors.js";
import type {
  AppendAck,
  AppendInput,
  AppendRecord,
  Header,
  ReadBatch,
  RecordFormat,
  SequencedRecord,
  StreamPosition,
} from "../types.js";
import { LIMITS } from "../types.js";

type Json = Record<string, unknown>;

/**
 * u64 values above 2^53 − 1 are refused, never rounded, with ONE code whatever the encoding
 * (JSON here, protobuf in proto.ts, frames in sessions): `out_of_range`, which svc lite
 * answers as 422 `invalid`.
 */
function tooLargeInteger(what: string): SvcError {
  return new SvcError({
    code: "out_of_range",
    message: `${what} is beyond 2^53 - 1 (9007199254740991) in magnitude, the largest value svc handles exactly`,
    origin: "client",
    retryable: false,
    sideEffects: false,
  });
}

function badJson(message: string): SvcError {
  return new SvcError({
    code: "bad_json",
    message,
    origin: "client",
    status: 400,
    retryable: false,
    sideEffects: false,
  });
}

/** `svc-format` header → format. Absent means raw; legacy aliases are accepted (§4.2). */
export function parseFormat(header: string | undefined): RecordFormat {
  const v = (header ?? "").trim().toLowerCase();
  if (v === "" || v === "raw" || v === "json") return "raw";
  if (v === "base64" || v === "json-binsafe") return "base64";
  throw new SvcError({
    code: "bad_header",
    message: `invalid svc-format ${JSON.stringify(header)}: expected raw or base64`,
    origin: "client",
    status: 400,
    retryable: false,
    sideEffects: false,
  });
}

/**
 * JSON.parse, then a check that no integer lost precision: every integer ≥ 2^53 parses to a
 * value that is not a safe integer, so checking after the parse catches each rounding.
 */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badJson(`malformed JSON: ${(e as Error).message}`);
  }
  const stack: unknown[] = [value];
  let numbers = false;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "number") {
      if (Number.isInteger(v) && !Number.isSafeInteger(v))
        throw tooLargeInteger(`the integer ${unsafeIntegerLiteral(text) ?? v}`);
      numbers = true;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === "object") {
      for (const item of Object.values(v)) stack.push(item);
    }
  }
  const rounded = numbers ? roundedIntegerLiteral(text) : undefined;
  if (rounded !== undefined)
    throw badJson(`the number ${rounded} is not an integer (it would be rounded to ${Number(rounded)})`);
  return value;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A u64 field: absent/null → undefined; a non-negative safe integer; anything else bad_json. */
function u64Field(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw badJson(`${field} must be a non-negative integer`);
  if (!Number.isSafeInteger(v)) throw tooLargeInteger(field);
  return v;
}

function headersFromJson(v: unknown, format: RecordFormat, where: string): Header[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw badJson(`${where}.headers must be an array of [name, value] pairs`);
  return v.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string" || typeof pair[1] !== "string") {
      throw badJson(`${where}.headers[${i}] must be a [name, value] pair of strings`);
    }
    return { name: decodeBytes(pair[0], format), value: decodeBytes(pair[1], format) };
  });
}

function headersToJson(headers: Header[], format: RecordFormat): [string, string][] {
  return headers.map((h) => [encodeBytes(h.name, format), encodeBytes(h.value, format)]);
}

function appendRecordFromJson(v: unknown, format: RecordFormat, where = "record"): AppendRecord {
  if (!isObject(v)) throw badJson(`${where} must be an object`);
  if (v.body === null) throw badJson(`${where}.body must be a string (omit it for an empty body)`);
  if (v.body !== undefined && typeof v.body !== "string") throw badJson(`${where}.body must be a string`);
  if (v.headers === null) throw badJson(`${where}.headers must be an array (omit it for no headers)`);
  const record: AppendRecord = {
    headers: headersFromJson(v.headers, format, where),
    body: v.body === undefined ? new Uint8Array(0) : decodeBytes(v.body as string, format),
  };
  const ts = u64Field(v.timestamp, `${where}.timestamp`);
  if (ts !== undefined) record.timestamp = ts;
  return record;
}

function appendRecordToJson(r: AppendRecord, format: RecordFormat): Json {
  const out: Json = {};
  if (r.timestamp !== undefined) out.timestamp = r.timestamp;
  if (r.headers.length > 0) out.headers = headersToJson(r.headers, format);
  if (r.body.length > 0) out.body = encodeBytes(r.body, format);
  return out;
}

export function appendInputFromJson(v: unknown, format: RecordFormat): AppendInput {
  if (!isObject(v)) throw badJson("the append body must be a JSON object");
  if (!Array.isArray(v.records)) throw badJson("missing field `records` (an array of records)");
  const input: AppendInput = { records: v.records.map((r, i) => appendRecordFromJson(r, format, `records[${i}]`)) };
  const match = u64Field(v.match_seq_num, "match_seq_num");
  if (match !== undefined) input.matchSeqNum = match;
  if (v.fencing_token !== undefined && v.fencing_token !== null) {
    if (typeof v.fencing_token !== "string") throw badJson("fencing_token must be a string");
    if (Buffer.byteLength(v.fencing_token, "utf8") > LIMITS.maxFencingTokenBytes) {
      throw badJson(`fencing_token must be at most ${LIMITS.maxFencingTokenBytes} bytes`);
    }
    input.fencingToken = v.fencing_token;
  }
  return input;
}

export function appendInputToJson(input: AppendInput, format: RecordFormat): Json {
  const out: Json = { records: input.records.map((r) => appendRecordToJson(r, format)) };
  if (input.matchSeqNum !== undefined) out.match_seq_num = input.matchSeqNum;
  if (input.fencingToken !== undefined) out.fencing_token = input.fencingToken;
  return out;
}

export function positionToJson(p: StreamPosition): { seq_num: number; timestamp: number } {
  return { seq_num: p.seqNum, timestamp: p.timestamp };
}

export function positionFromJson(v: unknown, field = "position"): StreamPosition {
  if (!isObject(v)) throw badJson(`${field} must be an object`);
  const seqNum = u64Field(v.seq_num, `${field}.seq_num`);
  const timestamp = u64Field(v.timestamp, `${field}.timestamp`);
  if (seqNum === undefined || timestamp === undefined) throw badJson(`${field} needs seq_num and timestamp`);
  return { seqNum, timestamp };
}

export function appendAckToJson(ack: AppendAck): Json {
  return { start: positionToJson(ack.start), end: positionToJson(ack.end), tail: positionToJson(ack.tail) };
}

export function appendAckFromJson(v: unknown): AppendAck {
  if (!isObject(v)) throw badJson("the append ack must be an object");
  return {
    start: positionFromJson(v.start, "start"),
    end: positionFromJson(v.end, "end"),
    tail: positionFromJson(v.tail, "tail"),
  };
}

export function sequencedRecordToJson(r: SequencedRecord, format: RecordFormat): Json {
  const out: Json = { seq_num: r.seqNum, timestamp: r.timestamp };
  if (r.headers.length > 0) out.headers = headersToJson(r.headers, format);
  if (r.body.length > 0) out.body = encodeBytes(r.body, format);
  return out;
}

function sequencedRecordFromJson(v: unknown, format: RecordFormat, where = "record"): SequencedRecord {
  if (!isObject(v)) throw badJson(`${where} must be an object`);
  const pos = positionFromJson(v, where);
  if (v.body !== undefined && typeof v.body !== "string") throw badJson(`${where}.body must be a string`);
  return {
    seqNum: pos.seqNum,
    timestamp: pos.timestamp,
    headers: headersFromJson(v.headers ?? undefined, format, where),
    body: typeof v.body === "string" ? decodeBytes(v.body, format) : new Uint8Array(0),
  };
}

export function readBatchToJson(batch: ReadBatch, format: RecordFormat): Json {
  const out: Json = { records: batch.records.map((r) => sequencedRecordToJson(r, format)) };
  if (batch.tail !== undefined) out.tail = positionToJson(batch.tail);
  return out;
}

export function readBatchFromJson(v: unknown, format: RecordFormat): ReadBatch {
  if (!isObject(v) || !Array.isArray(v.records)) throw badJson("a read batch needs a `records` array");
  const batch: ReadBatch = { records: v.records.map((r, i) => sequencedRecordFromJson(r, format, `records[${i}]`)) };
  if (v.tail !== undefined && v.tail !== null) batch.tail = positionFromJson(v.tail, "tail");
  return batch;
}
