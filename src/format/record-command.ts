/**
 * Command records as the CLI sees them (protocol.md §8.5): exactly one header, its name empty;
 * the header value names the operation and the body carries the payload.
 *
 *   fence  body = the new fencing token, 0..36 UTF-8 bytes ("" clears it)
 *   trim   body = 8 bytes, big-endian u64: the earliest sequence number to keep
 *
 * Built here rather than imported from wire/ (format may not import wire).
 */
import { lossyUtf8 } from "../bytes.js";
import { clientError } from "../errors.js";
import { LIMITS, type AppendRecord, type Header } from "../types.js";

export type CommandRecord = { op: "fence"; token: string } | { op: "trim"; point: bigint } | { op: "unknown"; name: string };

const EMPTY = new Uint8Array(0);
const FENCE = Buffer.from("fence");
const TRIM = Buffer.from("trim");

export function isCommandRecord(record: { headers: Header[] }): boolean {
  return record.headers.length === 1 && record.headers[0]!.name.length === 0;
}

/** The token's bytes; a usage error when it is over 36 UTF-8 bytes. */
export function fencingTokenBytes(token: string, what = "fencing token"): Uint8Array {
  const bytes = Buffer.from(token, "utf8");
  if (bytes.length > LIMITS.maxFencingTokenBytes) {
    throw clientError("usage", `${what} must be at most ${LIMITS.maxFencingTokenBytes} UTF-8 bytes (${JSON.stringify(token)} is ${bytes.length})`);
  }
  return bytes;
}

export function fenceCommandRecord(token: string): AppendRecord {
  return { headers: [{ name: EMPTY, value: FENCE }], body: fencingTokenBytes(token, "the new fencing token") };
}

export function trimCommandRecord(point: number): AppendRecord {
  if (!Number.isSafeInteger(point) || point < 0) throw clientError("usage", `trim point must be a non-negative integer (got ${point})`);
  const body = Buffer.alloc(8);
  body.writeBigUInt64BE(BigInt(point));
  return { headers: [{ name: EMPTY, value: TRIM }], body };
}

/** What a command record does; undefined for ordinary records. */
export function parseCommandRecord(record: { headers: Header[]; body: Uint8Array }): CommandRecord | undefined {
  if (!isCommandRecord(record)) return undefined;
  const op = Buffer.from(record.headers[0]!.value);
  if (op.equals(FENCE)) return { op: "fence", token: lossyUtf8(record.body) };
  if (op.equals(TRIM) && record.body.length === 8) {
    return { op: "trim", point: Buffer.from(record.body.buffer, record.body.byteOffset, 8).readBigUInt64BE() };
  }
  return { op: "unknown", name: lossyUtf8(op) };
}

/** The anchor's wording: `new fencing token "x"`, `trim to 3`, `unknown command`. */
export function describeCommand(cmd: CommandRecord): string {
  switch (cmd.op) {
    case "fence": return `new fencing token ${JSON.stringify(cmd.token)}`;
    case "trim": return `trim to ${cmd.point}`;
    default: return "unknown command";
  }
}
