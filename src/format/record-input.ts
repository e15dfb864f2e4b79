/**
 * Append input: one line (or one whole input) → one record (docs/design/cli.md, "Record formats").
 *
 *   text         the line's bytes are the body (no headers, no timestamp)
 *   json         {"timestamp"?: u64, "headers"?: [[name, value]…], "body"?: string}, UTF-8 strings
 *   json-base64  the same, with names, values and body in strict padded base64
 *   binary       the whole input (or each file) is one body
 *
 * Unknown fields (e.g. `seq_num` from `svc read --format json`) are ignored, so read output
 * can be fed back. Errors are `RecordInputError`s without a location; the caller adds file:line.
 */
import { isUtf8 } from "node:buffer";
import {
  decodeBase64Strict,
  hasLoneSurrogate,
  lossyUtf8,
  roundedIntegerLiteral,
  unsafeIntegerLiteral,
} from "../bytes.js";
import { clientError } from "../errors.js";
import type { AppendRecord, Header } from "../types.js";
import type { FormatName } from "./format-name.js";

/** An input format: one of the names of format-name.ts. */
export type InputFormat = FormatName;
export type InvalidUtf8 = "bytes" | "replace" | "error";

/** A malformed input record; `where` is filled in by the reader (`file:line`). */
export class RecordInputError extends Error {
  /** The input line (1-based) when the error is about a line, as counted by the splitter. */
  constructor(
    message: string,
    readonly line?: number,
    /** What to do about it, for the `hint:` line (`svc append`). */
    readonly hint?: string,
  ) {
    super(message);
    this.name = "RecordInputError";
  }
}

function field(bytes: string, base64: boolean, what: string): Uint8Array {
  if (!base64) {
    // A lone UTF-16 surrogate has no UTF-8 form: encoding would store U+FFFD in its place.
    if (hasLoneSurrogate(bytes))
      throw new RecordInputError(
        `${what} holds a lone UTF-16 surrogate, which has no UTF-8 form: send such bytes as base64 (--format json-base64)`,
      );
    return Buffer.from(bytes, "utf8");
  }
  try {
    return decodeBase64Strict(bytes);
  } catch {
    const shown = bytes.length > 40 ? `${bytes.slice(0, 40)}…` : bytes;
    throw new RecordInputError(`invalid base64 in ${what}: ${JSON.stringify(shown)}`);
  }
}

/** What a number past the exact range is compared with, in errors. */
const TOO_LARGE = "9007199254740991 (2^53 − 1), the largest integer svc carries exactly";

/** The literal of a top-level number field as written in `line` (JSON.parse may have rounded it). */
function numberLiteral(line: string, key: string): string | undefined {
  return new RegExp(`"${key}"\\s*:\\s*(-?[0-9][0-9.eE+-]*)`).exec(line)?.[1];
}

/** One JSON line → one record. */
export function parseJsonRecord(line: string, base64: boolean): AppendRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    throw new RecordInputError(`invalid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new RecordInputError('expected a JSON object like {"headers": [["name", "value"]], "body": "…"}');
  }
  const obj = value as Record<string, unknown>;
  const record: AppendRecord = { headers: [], body: new Uint8Array(0) };
  if (obj.timestamp !== undefined && obj.timestamp !== null) {
    const t = obj.timestamp;
    if (typeof t === "number" && Number.isInteger(t) && t > Number.MAX_SAFE_INTEGER) {
      throw new RecordInputError(`"timestamp" is ${unsafeIntegerLiteral(line) ?? t}, above ${TOO_LARGE}`);
    }
    if (typeof t !== "number" || !Number.isSafeInteger(t) || t < 0) {
      throw new RecordInputError(
        `"timestamp" must be a non-negative integer (epoch ms), got ${typeof t === "number" ? (numberLiteral(line, "timestamp") ?? t) : JSON.stringify(t)}`,
      );
    }
    const rounded = roundedIntegerLiteral(line);
    if (rounded !== undefined)
      throw new RecordInputError(`"timestamp" must be an integer (epoch ms): ${rounded} would be rounded to ${t}`);
    record.timestamp = t;
  }
  if (obj.headers !== undefined && obj.headers !== null) {
    if (!Array.isArray(obj.headers)) throw new RecordInputError('"headers" must be an array of [name, value] pairs');
    obj.headers.forEach((h: unknown, i: number) => {
      if (!Array.isArray(h) || h.length !== 2 || typeof h[0] !== "string" || typeof h[1] !== "string") {
        throw new RecordInputError(`"headers"[${i}] must be a [name, value] pair of strings, got ${JSON.stringify(h)}`);
      }
      record.headers.push({
        name: field(h[0], base64, `header ${i} name`),
        value: field(h[1], base64, `header ${i} value`),
      });
    });
  }
  if (obj.body !== undefined && obj.body !== null) {
    if (typeof obj.body !== "string") throw new RecordInputError(`"body" must be a string, got ${typeof obj.body}`);
    record.body = field(obj.body, base64, "body");
  }
  return record;
}

/** One text line → one record body, with the chosen treatment of bytes that are not UTF-8. */
export function textRecord(line: Uint8Array, invalidUtf8: InvalidUtf8): AppendRecord {
  let body = line;
  if (invalidUtf8 !== "bytes" && !isUtf8(line)) {
    if (invalidUtf8 === "error")
      throw new RecordInputError(
        "the line is not valid UTF-8 (use --invalid-utf8 bytes or replace, or --format binary)",
      );
    body = Buffer.from(lossyUtf8(line), "utf8");
  }
  return { headers: [], body };
}

/** `-H name=value` (UTF-8) or `-H name:=base64` (bytes). */
export function parseHeaderFlag(text: string): Header {
  const b64 = text.indexOf(":=");
  const eq = text.indexOf("=");
  if (b64 > 0 && b64 < eq) {
    const name = text.slice(0, b64);
    let value: Uint8Array;
    try {
      value = decodeBase64Strict(text.slice(b64 + 2));
    } catch {
      throw clientError("usage", `-H ${JSON.stringify(text)}: the value after := must be padded standard base64`);
    }
    return { name: Buffer.from(name, "utf8"), value };
  }
  if (eq <= 0)
    throw clientError(
      "usage",
      `-H ${JSON.stringify(text)}: expected name=value (or name:=base64); the name must not be empty`,
    );
  return { name: Buffer.from(text.slice(0, eq), "utf8"), value: Buffer.from(text.slice(eq + 1), "utf8") };
}

/** Adds the `-H` headers and the default timestamp to a parsed record. */
export function decorate(record: AppendRecord, headers: Header[], timestamp: (() => number) | undefined): AppendRecord {
  if (headers.length > 0) record.headers = [...record.headers, ...headers];
  if (timestamp !== undefined && record.timestamp === undefined) record.timestamp = timestamp();
  return record;
}
