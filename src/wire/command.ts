/**
 * Command records (seed "Command record"; protocol.md §8.5).
 *
 * A command record has exactly one header and that header's name is empty. The header value
 * names the operation; the body is its payload:
 *
 *   fence  body = the new fencing token, 0..36 UTF-8 bytes (empty clears the token)
 *   trim   body = 8 bytes, big-endian u64: the earliest sequence number to keep
 */
import { SvcError } from "../errors.js";
import type { AppendRecord, Header } from "../types.js";
import { LIMITS } from "../types.js";

export type Command = { op: "fence"; token: string } | { op: "trim"; trimPoint: bigint };

const FENCE = new TextEncoder().encode("fence");
const TRIM = new TextEncoder().encode("trim");
const EMPTY = new Uint8Array(0);

function invalid(message: string): SvcError {
  return new SvcError({ code: "invalid", message, origin: "client", status: 422, retryable: false, sideEffects: false });
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The test the seed gives: exactly one header, and its name is empty. */
export function isCommandRecord(record: { headers: Header[] }): boolean {
  return record.headers.length === 1 && record.headers[0]!.name.length === 0;
}

/** Validates a fencing token: valid UTF-8 of at most 36 bytes. Returns its bytes. */
export function fencingTokenBytes(token: string): Uint8Array {
  const bytes = new TextEncoder().encode(token);
  if (bytes.length > LIMITS.maxFencingTokenBytes) {
    throw invalid(`fencing token must be at most ${LIMITS.maxFencingTokenBytes} UTF-8 bytes (got ${bytes.length})`);
  }
  return bytes;
}

/** Builds a `fence` command record; an empty token clears the stream's token. */
export function fenceRecord(token: string, timestamp?: number): AppendRecord {
  const record: AppendRecord = { headers: [{ name: EMPTY, value: FENCE }], body: fencingTokenBytes(token) };
  if (timestamp !== undefined) record.timestamp = timestamp;
  return record;
}

/** Builds a `trim` command record: records before `trimPoint` are removed. */
export function trimRecord(trimPoint: number | bigint, timestamp?: number): AppendRecord {
  const point = BigInt(trimPoint);
  if (point < 0n || point > 0xffff_ffff_ffff_ffffn) throw invalid("trim point must be a u64");
  const body = new Uint8Array(8);
  new DataView(body.buffer).setBigUint64(0, point, false);
  const record: AppendRecord = { headers: [{ name: EMPTY, value: TRIM }], body };
  if (timestamp !== undefined) record.timestamp = timestamp;
  return record;
}

/** Reads the operation of a command record; throws `invalid` for unknown or malformed ones. */
export function parseCommand(record: { headers: Header[]; body: Uint8Array }): Command {
  if (!isCommandRecord(record)) throw invalid("not a command record");
  const op = record.headers[0]!.value;
  if (equalBytes(op, FENCE)) {
    let token: string;
    try {
      token = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(record.body); // a leading U+FEFF is part of the token
    } catch {
      throw invalid("fence command payload must be valid UTF-8");
    }
    if (record.body.length > LIMITS.maxFencingTokenBytes) {
      throw invalid(`fence command payload must be at most ${LIMITS.maxFencingTokenBytes} bytes`);
    }
    return { op: "fence", token };
  }
  if (equalBytes(op, TRIM)) {
    if (record.body.length !== 8) throw invalid(`trim command payload must be exactly 8 bytes (got ${record.body.length})`);
    const view = new DataView(record.body.buffer, record.body.byteOffset, 8);
    return { op: "trim", trimPoint: view.getBigUint64(0, false) };
  }
  throw invalid("unknown command");
}
