/**
 * `--template` lines of `svc read` and `svc tail`, e.g.
 * `{seq_num}\t{timestamp:iso}\t{header:content-type}\t{body}`.
 *
 *   {seq_num}  {timestamp} {timestamp:ms|iso|relative}  {body} {body:base64|hex}
 *   {headers}  all headers as a JSON array of [name, value] (UTF-8 text: lossy)
 *   {header:NAME}  the first value of header NAME ("" when absent)
 *   {size}     the record's metered size
 *   \t \n \r \0 \\ escapes; {{ and }} for literal braces
 *
 * `{body}` and `{header:NAME}` are the bytes as they are, like the text format; `{headers}`
 * is JSON, which cannot carry bytes that are not UTF-8: `changes(r)` tells the reader that it
 * wrote U+FFFD for such a record. The record delimiter is added by the caller, not by the
 * template. Unknown placeholders are usage errors, found at compile time.
 */
import { isUtf8 } from "node:buffer";
import { lossyUtf8 } from "../bytes.js";
import { clientError } from "../errors.js";
import { meteredSize } from "../rules/records.js";
import type { SequencedRecord } from "../types.js";
import { formatIso, formatRelative } from "./record-time.js";

type Part = (r: SequencedRecord) => string | Uint8Array;

/** A compiled template: the line of a record, and whether it wrote U+FFFD for bytes that are not UTF-8. */
interface RecordTemplate {
  (r: SequencedRecord): Buffer;
  changes(r: SequencedRecord): boolean;
}

const ESCAPES: Record<string, string> = { t: "\t", n: "\n", r: "\r", "0": "\0", "\\": "\\" };

function placeholder(spec: string, template: string): Part {
  const [name, ...restParts] = spec.split(":");
  const arg = restParts.join(":");
  switch (name) {
    case "seq_num":
      if (arg === "") return (r) => String(r.seqNum);
      break;
    case "timestamp":
      if (arg === "" || arg === "ms") return (r) => String(r.timestamp);
      if (arg === "iso") return (r) => formatIso(r.timestamp);
      if (arg === "relative") return (r) => formatRelative(r.timestamp);
      break;
    case "body":
      if (arg === "" || arg === "text") return (r) => r.body;
      if (arg === "base64") return (r) => Buffer.from(r.body).toString("base64");
      if (arg === "hex") return (r) => Buffer.from(r.body).toString("hex");
      break;
    case "headers":
      if (arg === "") return (r) => JSON.stringify(r.headers.map((h) => [lossyUtf8(h.name), lossyUtf8(h.value)]));
      break;
    case "header":
      if (arg !== "") {
        const want = Buffer.from(arg, "utf8");
        return (r) => {
          const h = r.headers.find((x) => Buffer.from(x.name).equals(want));
          return h ? h.value : "";
        };
      }
      break;
    case "size":
      if (arg === "") return (r) => String(meteredSize(r));
      break;
  }
  throw clientError(
    "usage",
    `--template ${JSON.stringify(template)}: unknown placeholder {${spec}}; known: {seq_num} {timestamp[:ms|iso|relative]} {body[:base64|hex]} {headers} {header:NAME} {size}`,
  );
}

export function compileTemplate(template: string): RecordTemplate {
  const parts: Part[] = [];
  let lossyHeaders = false;
  let lit = "";
  const flush = (): void => {
    if (lit === "") return;
    const text = lit;
    parts.push(() => text);
    lit = "";
  };
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    const next = template[i + 1];
    if (c === "\\" && next !== undefined && ESCAPES[next] !== undefined) {
      lit += ESCAPES[next];
      i++;
    } else if ((c === "{" && next === "{") || (c === "}" && next === "}")) {
      lit += c;
      i++;
    } else if (c === "{") {
      const close = template.indexOf("}", i);
      if (close < 0) throw clientError("usage", `--template ${JSON.stringify(template)}: unclosed {`);
      flush();
      const spec = template.slice(i + 1, close).trim();
      if (spec === "headers") lossyHeaders = true;
      parts.push(placeholder(spec, template));
      i = close;
    } else if (c === "}") {
      throw clientError("usage", `--template ${JSON.stringify(template)}: unmatched } (write }} for a literal brace)`);
    } else lit += c;
  }
  flush();
  const render = (r: SequencedRecord): Buffer =>
    Buffer.concat(
      parts.map((p) => {
        const v = p(r);
        return typeof v === "string" ? Buffer.from(v, "utf8") : v;
      }),
    );
  const changes = (r: SequencedRecord): boolean =>
    lossyHeaders && r.headers.some((h) => !isUtf8(h.name) || !isUtf8(h.value));
  return Object.assign(render, { changes });
}
