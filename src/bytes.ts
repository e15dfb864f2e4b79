/**
 * Byte <-> text conversions shared by every layer (wire/json.ts for the protocol, format/ for
 * the CLI's output), so both sides of svc treat bytes identically (protocol.md §4.3, §4.4):
 *
 * - base64: standard alphabet with `=` padding; decoding is strict (alphabet, padding and
 *   canonical trailing bits), failing with `invalid` (422).
 * - raw: a string's UTF-8 bytes; bytes are read back lossily, one U+FFFD per maximal run of
 *   bytes that is not valid UTF-8.
 *
 * Also the one check of JSON number literals that JSON.parse rounds to an integer (the
 * protocol's and svc's JSON alike): sequence numbers and timestamps are never silently rounded;
 * and the size of a protobuf varint (wire/record-encode.ts encodes, rules/records.ts bounds).
 */
import { isUtf8 } from "node:buffer";
import { SvcError } from "./errors.js";
import type { RecordFormat } from "./types.js";

function invalid(message: string): SvcError {
  return new SvcError({
    code: "invalid",
    message,
    origin: "client",
    status: 422,
    retryable: false,
    sideEffects: false,
  });
}

const BASE64_SHAPE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Strict standard base64: right alphabet, padded, canonical trailing bits (§4.4). Node's
 * decoder is lenient (URL-safe letters, whitespace, missing padding), but its encoder writes
 * only canonical padded base64, so a text that survives the round trip unchanged is valid; the
 * shape test (an irregexp compile on first use: a one-shot command's worth of milliseconds)
 * runs only to word the refusal.
 */
export function decodeBase64Strict(text: string): Uint8Array {
  const bytes = Buffer.from(text, "base64");
  if (bytes.toString("base64") === text) return bytes;
  if (!BASE64_SHAPE.test(text)) throw invalid("invalid Base64 encoding");
  throw invalid("invalid Base64 encoding (non-canonical padding bits)");
}

export function encodeBytes(bytes: Uint8Array, format: RecordFormat): string {
  return format === "base64" ? toBuffer(bytes).toString("base64") : lossyUtf8(bytes);
}

export function decodeBytes(text: string, format: RecordFormat): Uint8Array {
  if (format === "base64") return decodeBase64Strict(text);
  // A lone surrogate (JSON "\ud800") is not text: UTF-8 cannot carry it, and encoding it
  // anyway stores EF BF BD, a silent change of the data. Bytes go as base64.
  if (LONE_SURROGATE.test(text)) {
    throw new SvcError({
      code: "bad_json",
      message:
        "a string holds a lone UTF-16 surrogate, which is not valid Unicode text: send such bytes with svc-format base64",
      origin: "client",
      status: 400,
      retryable: false,
      sideEffects: false,
    });
  }
  return Buffer.from(text, "utf8");
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `text` holds a lone UTF-16 surrogate: not Unicode text, and not encodable in UTF-8. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** UTF-8 decoding where each maximal run of invalid bytes becomes one U+FFFD (§4.3). */
export function lossyUtf8(bytes: Uint8Array): string {
  const buf = toBuffer(bytes);
  if (isUtf8(buf)) return buf.toString("utf8");
  let out = "";
  let i = 0;
  let validStart = 0;
  let inInvalid = false;
  while (i < buf.length) {
    const n = validSequenceLength(buf, i);
    if (n > 0) {
      if (inInvalid) {
        out += "\ufffd";
        inInvalid = false;
        validStart = i;
      }
      i += n;
    } else {
      if (!inInvalid) {
        out += buf.toString("utf8", validStart, i);
        inInvalid = true;
      }
      i += 1;
    }
  }
  out += inInvalid ? "\ufffd" : buf.toString("utf8", validStart, i);
  return out;
}

/** Length of the well-formed UTF-8 sequence at `i` (Unicode table 3-7), or 0. */
export function validSequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** JSON tokens: a string, a run of other non-number characters, or a number literal. */
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"|[^"\d-]+|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|-/y;
const NUMBER_PARTS = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The first number literal of valid JSON `text` with a fraction or exponent whose value is not
 * an integer although JSON.parse makes it one (`6006.9999999999999999`, `4503599627370497.5`,
 * `86399.99999999999999`); undefined when there is none. `1.0` and `1e3` are integers as
 * written and pass. Strings are skipped whole, so a body of digits costs one step.
 */
export function roundedIntegerLiteral(text: string): string | undefined {
  JSON_TOKEN.lastIndex = 0;
  while (JSON_TOKEN.lastIndex < text.length) {
    const m = JSON_TOKEN.exec(text);
    if (m === null) return undefined; // not JSON: JSON.parse has said so already
    const lit = m[0];
    if (
      lit.length > 1 &&
      /[.eE]/.test(lit) &&
      lit[0] !== '"' &&
      Number.isInteger(Number(lit)) &&
      !integerAsWritten(lit)
    )
      return lit;
  }
  return undefined;
}

/**
 * The first number literal of valid JSON `text` whose value is an integer beyond 2^53 − 1 in
 * magnitude, as written (`9007199254740993`, which JSON.parse turns into ...992): an error
 * must echo the value given, not its rounding. Strings are skipped whole.
 */
export function unsafeIntegerLiteral(text: string): string | undefined {
  JSON_TOKEN.lastIndex = 0;
  while (JSON_TOKEN.lastIndex < text.length) {
    const m = JSON_TOKEN.exec(text);
    if (m === null) return undefined;
    const lit = m[0];
    if (lit[0] !== '"' && /\d/.test(lit) && Number.isInteger(Number(lit)) && !Number.isSafeInteger(Number(lit)))
      return lit;
  }
  return undefined;
}

/** Whether a number literal's exact decimal value is an integer. */
function integerAsWritten(lit: string): boolean {
  const m = NUMBER_PARTS.exec(lit);
  if (!m) return true;
  const digits = (m[1]! + (m[2] ?? "")).replace(/^0+/, "");
  if (digits === "") return true; // zero
  const zeros = digits.length - digits.replace(/0+$/, "").length;
  return Number(m[3] ?? 0) - (m[2]?.length ?? 0) + zeros >= 0;
}

/** Bytes of `n` (a non-negative safe integer) as a protobuf varint: 7 bits a byte. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}
