/**
 * Text that came from a server (record bodies, stream and basin names, error messages…) shown
 * on a terminal. A terminal obeys control characters: a stream named `x\e]0;OWNED\a` would
 * retitle the window, a record body could move the cursor or write the clipboard (OSC 52).
 * So on a terminal svc shows these characters escaped, everywhere it prints such text:
 *
 *   - C0 controls U+0000–U+001F, DEL U+007F and C1 controls U+0080–U+009F are written `\xHH`
 *     (ESC is `\x1b`), except tab; in record output (bodies and template lines) newline too
 *     is kept; in names, messages and other one-line text newline is escaped as well (`\x0a`);
 *   - in record bodies, a byte that is not part of valid UTF-8 is written `\xHH` too;
 *   - in JSON documents, DEL and C1 are written `\u007f`…`\u009f` (JSON.stringify escapes
 *     C0 already): the same JSON value, still valid JSON.
 *
 * A backslash is not escaped, so `\x1b` typed as text looks the same as an escaped ESC: this
 * is for eyes only. Piped or written to a file, nothing is escaped: bytes pass as they are.
 */
import { isUtf8 } from "node:buffer";
import { validSequenceLength } from "../bytes.js";

const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/;
const CONTROLS_G = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
const CONTROLS_BUT_NEWLINE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const CONTROLS_BUT_NEWLINE_G = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const JSON_UNESCAPED = /[\x7f-\x9f]/;
const JSON_UNESCAPED_G = /[\x7f-\x9f]/g;

const hex = (c: string): string => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;

/** One-line text (a name, a message, a table cell): every control character but tab escaped. */
export function escapeLine(text: string): string {
  return CONTROLS.test(text) ? text.replace(CONTROLS_G, hex) : text;
}

/** Record text (a body, a template line): every control character but tab and newline escaped. */
function escapeRecordText(text: string): string {
  return CONTROLS_BUT_NEWLINE.test(text) ? text.replace(CONTROLS_BUT_NEWLINE_G, hex) : text;
}

/** JSON text: DEL and C1 as `\u00hh`, which JSON.stringify leaves as they are. */
export function escapeJson(text: string): string {
  return JSON_UNESCAPED.test(text)
    ? text.replace(JSON_UNESCAPED_G, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
    : text;
}

/** A record body for a terminal: UTF-8 text with its controls escaped, and each byte that is not UTF-8 as `\xHH`. */
export function escapeBody(body: Uint8Array): string {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (isUtf8(buf)) return escapeRecordText(buf.toString("utf8"));
  let out = "";
  let start = 0;
  for (let i = 0; i < buf.length; ) {
    const n = validSequenceLength(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += escapeRecordText(buf.toString("utf8", start, i)) + `\\x${buf[i]!.toString(16).padStart(2, "0")}`;
    start = ++i;
  }
  return out + escapeRecordText(buf.toString("utf8", start));
}
