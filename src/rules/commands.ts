/**
 * Command records (protocol.md §8.5): a record with exactly one header, whose name is empty.
 * The header value names the operation; the body is its payload:
 *
 *   fence  body = the new fencing token, 0..36 bytes of UTF-8 (empty clears the token)
 *   trim   body = 8 bytes, big-endian u64: the earliest sequence number to keep
 *
 * Anything else with that shape (another operation, a payload that breaks its rule) is refused
 * with the record's batch (422 invalid).
 */

import { lossyUtf8 } from "../bytes.js";
import type { Fail } from "../errors.js";
import { type AppendRecord, type Header, LIMITS } from "../types.js";

export type Command = { op: "fence"; token: string } | { op: "trim"; trimPoint: bigint };

const FENCE = new TextEncoder().encode("fence");
const TRIM = new TextEncoder().encode("trim");
const EMPTY = new Uint8Array(0);
// A leading U+FEFF is part of a token, not a byte-order mark to drop.
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function isCommandRecord(record: { headers: Header[] }): boolean {
  return record.headers.length === 1 && record.headers[0]!.name.length === 0;
}

/** What is wrong with a fencing token (at most 36 bytes of UTF-8), or undefined. */
export function fencingTokenProblem(token: string): string | undefined {
  const bytes = Buffer.byteLength(token, "utf8");
  if (bytes > LIMITS.maxFencingTokenBytes)
    return `must be at most ${LIMITS.maxFencingTokenBytes} UTF-8 bytes (got ${bytes})`;
  return undefined;
}

/** The command a command record carries, or the rule it breaks. */
function judge(record: { headers: Header[]; body: Uint8Array }): Command | string {
  const op = record.headers[0]!.value;
  const body = record.body;
  if (equalBytes(op, FENCE)) {
    if (body.length > LIMITS.maxFencingTokenBytes) {
      return `fence command payload (the new fencing token) must be at most ${LIMITS.maxFencingTokenBytes} bytes (got ${body.length})`;
    }
    try {
      return { op: "fence", token: STRICT_UTF8.decode(body) };
    } catch {
      return "fence command payload (the new fencing token) must be valid UTF-8";
    }
  }
  if (equalBytes(op, TRIM)) {
    if (body.length !== 8) return `trim command payload must be exactly 8 bytes, a big-endian u64 (got ${body.length})`;
    return { op: "trim", trimPoint: new DataView(body.buffer, body.byteOffset, 8).getBigUint64(0, false) };
  }
  return `unknown command ${JSON.stringify(lossyUtf8(op))}: the operations are fence and trim`;
}

/** The operation a command record names, whatever its payload (§9.2: what it needs besides `append`). */
export function commandOp(record: { headers: Header[] }): Command["op"] | undefined {
  if (!isCommandRecord(record)) return undefined;
  const op = record.headers[0]!.value;
  return equalBytes(op, FENCE) ? "fence" : equalBytes(op, TRIM) ? "trim" : undefined;
}

/** What is wrong with a command record, or undefined when it carries a valid command. */
export function commandProblem(record: { headers: Header[]; body: Uint8Array }): string | undefined {
  const c = judge(record);
  return typeof c === "string" ? c : undefined;
}

/** The command of a command record, or undefined when it breaks a rule (for display). */
export function readCommand(record: { headers: Header[]; body: Uint8Array }): Command | undefined {
  if (!isCommandRecord(record)) return undefined;
  const c = judge(record);
  return typeof c === "string" ? undefined : c;
}

/** The command of a command record; throws `fail(message)` when it breaks a rule. */
export function checkCommand(record: { headers: Header[]; body: Uint8Array }, fail: Fail): Command {
  if (!isCommandRecord(record)) throw fail("not a command record (exactly one header, with an empty name)");
  const c = judge(record);
  if (typeof c === "string") throw fail(c);
  return c;
}

/** A `fence` command record; an empty token clears the stream's token. Judged on append. */
export function fenceRecord(token: string, timestamp?: number): AppendRecord {
  const record: AppendRecord = { headers: [{ name: EMPTY, value: FENCE }], body: new TextEncoder().encode(token) };
  if (timestamp !== undefined) record.timestamp = timestamp;
  return record;
}

/** A `trim` command record: records before `trimPoint` (a u64) are removed. */
export function trimRecord(trimPoint: number | bigint, timestamp?: number): AppendRecord {
  const point = BigInt(trimPoint);
  // setBigUint64 would wrap a negative or larger value around silently.
  if (point < 0n || point > 0xffff_ffff_ffff_ffffn) throw new RangeError(`trim point ${point} is not a u64`);
  const body = new Uint8Array(8);
  new DataView(body.buffer).setBigUint64(0, point, false);
  const record: AppendRecord = { headers: [{ name: EMPTY, value: TRIM }], body };
  if (timestamp !== undefined) record.timestamp = timestamp;
  return record;
}
