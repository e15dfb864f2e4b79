/**
 * Read output: one record → one line (docs/design/cli.md, "Record formats").
 *
 *   text         the body's own bytes, whatever they are
 *   json         {"seq_num","timestamp",["time"],"headers":[[n,v]],"body"} with UTF-8 strings:
 *                bytes that are not UTF-8 cannot be carried and become U+FFFD (the reader
 *                counts such records and says so on stderr: `lossyFields`)
 *   json-base64  the same with names, values and body in padded base64: exact for any bytes
 *   binary       the body's exact bytes, nothing else (no delimiter unless one is asked for)
 *
 * `--invalid-utf8` changes what text and json do with bytes that are not UTF-8: `replace`
 * (U+FFFD, asked for), `error`, or `base64` (that record's fields in base64, marked).
 * JSON always carries `headers` and `body` (svc default); `omitEmpty` drops them when empty,
 * as the S2 CLI does.
 */
import { isUtf8 } from "node:buffer";
import { encodeBytes, lossyUtf8 } from "../bytes.js";
import { clientError } from "../errors.js";
import type { SequencedRecord } from "../types.js";
import type { FormatName } from "./format-name.js";
import { parseCommandRecord } from "./record-command.js";
import { formatIso } from "./record-time.js";

/** An output format: one of the names of format-name.ts. */
export type OutputFormat = FormatName;
/** What to do with bytes that are not UTF-8 in text or json output. */
export type InvalidUtf8Output = "replace" | "error" | "base64";

export interface JsonOptions {
  base64: boolean;
  omitEmpty?: boolean;
  /** Adds `"time": "<ISO 8601>"` after the timestamp. */
  isoTime?: boolean;
  pretty?: boolean;
  /** Drop the body (`--headers-only`) or body and headers (`--meta-only`). */
  drop?: "body" | "all";
  invalidUtf8?: InvalidUtf8Output;
}

function hasInvalidUtf8(r: SequencedRecord): boolean {
  if (!isUtf8(r.body)) return true;
  return r.headers.some((h) => !isUtf8(h.name) || !isUtf8(h.value));
}

/** Whether the JSON text form of `r` (without what `drop` drops) changes bytes: some field is not UTF-8. */
export function lossyFields(r: SequencedRecord, drop?: JsonOptions["drop"]): boolean {
  if (drop === "all") return false;
  if (drop === undefined && !isUtf8(r.body)) return true;
  return r.headers.some((h) => !isUtf8(h.name) || !isUtf8(h.value));
}

function notUtf8Error(r: { seqNum: number }): Error {
  return clientError(
    "bad_input",
    `record ${r.seqNum} is not valid UTF-8 (use --format json-base64, or --invalid-utf8 replace or base64)`,
  );
}

/** The JSON object for one record (field order fixed: seq_num, timestamp, time, headers, body). */
export function recordToJson(r: SequencedRecord, o: JsonOptions): Record<string, unknown> {
  let base64 = o.base64;
  const out: Record<string, unknown> = { seq_num: r.seqNum, timestamp: r.timestamp };
  if (!base64 && o.invalidUtf8 !== undefined && o.invalidUtf8 !== "replace" && hasInvalidUtf8(r)) {
    if (o.invalidUtf8 === "error") throw notUtf8Error(r);
    base64 = true;
    out.encoding = "base64";
  }
  const fmt = base64 ? "base64" : "raw";
  if (o.isoTime) out.time = formatIso(r.timestamp);
  // Without its headers (--meta-only) a command record would look like data: it says what it is.
  if (o.drop === "all") {
    const cmd = parseCommandRecord(r);
    if (cmd) out.command = cmd.op === "unknown" ? cmd.name : cmd.op;
  }
  if (o.drop !== "all" && (!o.omitEmpty || r.headers.length > 0)) {
    out.headers = r.headers.map((h) => [encodeBytes(h.name, fmt), encodeBytes(h.value, fmt)]);
  }
  if (o.drop === undefined && (!o.omitEmpty || r.body.length > 0)) out.body = encodeBytes(r.body, fmt);
  return out;
}

export function renderJson(r: SequencedRecord, o: JsonOptions): string {
  return JSON.stringify(recordToJson(r, o), null, o.pretty ? 2 : undefined);
}

/** The text form of a body: its own bytes, unless `--invalid-utf8` says what to do with bytes that are not UTF-8. */
export function renderTextBody(body: Uint8Array, invalidUtf8?: InvalidUtf8Output, seqNum = 0): Uint8Array {
  if (invalidUtf8 === undefined || isUtf8(body)) return body;
  if (invalidUtf8 === "error") throw notUtf8Error({ seqNum });
  if (invalidUtf8 === "base64") return Buffer.from(Buffer.from(body).toString("base64"));
  return Buffer.from(lossyUtf8(body), "utf8");
}
