/**
 * `--input-template` for append (after Redpanda's rpk; docs/design/cli.md, "Appending"): each input
 * line is matched against a pattern of literals and placeholders, anchored at both ends:
 *
 *   %v         the body (the rest; greedy)
 *   %T         the record timestamp: epoch ms, or RFC 3339 (`2026-01-02T03:04:05Z`, as --timestamp)
 *   %h{NAME}   the value of header NAME (shortest match)
 *   %%         a literal %; \t \n \\ escapes in literals
 *
 * e.g. `%T %h{type} %v` turns `1700000000000 click hello world` into timestamp 1700000000000,
 * header type=click and body "hello world".
 */
import { clientError } from "../errors.js";
import type { AppendRecord } from "../types.js";
import { RecordInputError } from "./record-input.js";
import { parseTimePoint } from "./record-time.js";

type Slot = { kind: "body" } | { kind: "timestamp" } | { kind: "header"; name: Buffer };

const ESC: Record<string, string> = { t: "\t", n: "\n", "\\": "\\" };

export function compileInputTemplate(template: string): (line: string) => AppendRecord {
  let re = "^";
  const slots: Slot[] = [];
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    const n = template[i + 1];
    if (c === "\\" && n !== undefined && ESC[n] !== undefined) {
      re += escapeRe(ESC[n]!);
      i++;
    } else if (c === "%" && n === "%") {
      re += "%";
      i++;
    } else if (c === "%" && n === "v") {
      re += "(.*)";
      slots.push({ kind: "body" });
      i++;
    } else if (c === "%" && n === "T") {
      // Epoch ms, or RFC 3339 written with a T (a space would end the field).
      re += "(\\d{4}-\\d{2}-\\d{2}[Tt][^\\s]+|\\d+)";
      slots.push({ kind: "timestamp" });
      i++;
    } else if (c === "%" && n === "h" && template[i + 2] === "{") {
      const close = template.indexOf("}", i + 3);
      if (close < 0) throw clientError("usage", `--input-template ${JSON.stringify(template)}: unclosed %h{`);
      const name = template.slice(i + 3, close);
      if (name === "") throw clientError("usage", `--input-template: %h{} needs a header name`);
      re += "(.*?)";
      slots.push({ kind: "header", name: Buffer.from(name, "utf8") });
      i = close;
    } else if (c === "%") {
      throw clientError(
        "usage",
        `--input-template ${JSON.stringify(template)}: unknown %${n ?? ""}; known: %v %T %h{NAME} %%`,
      );
    } else re += escapeRe(c);
  }
  if (!slots.some((s) => s.kind === "body"))
    throw clientError("usage", `--input-template ${JSON.stringify(template)} has no %v (body)`);
  const pattern = new RegExp(`${re}$`, "s");
  return (line) => {
    const m = pattern.exec(line);
    if (!m)
      throw new RecordInputError(
        `the line does not match --input-template ${JSON.stringify(template)}${slots.some((s) => s.kind === "timestamp") ? " (%T takes epoch milliseconds or RFC 3339 such as 2026-01-02T03:04:05Z)" : ""}`,
        undefined,
        TEMPLATE_HINT,
      );
    const record: AppendRecord = { headers: [], body: new Uint8Array(0) };
    slots.forEach((s, k) => {
      const v = m[k + 1]!;
      if (s.kind === "body") record.body = Buffer.from(v, "utf8");
      else if (s.kind === "header") record.headers.push({ name: s.name, value: Buffer.from(v, "utf8") });
      else record.timestamp = templateTime(v);
    });
    return record;
  };
}

/** A %T field: what --timestamp takes, as bad input (the line's fault) when it is not a time. */
function templateTime(v: string): number {
  try {
    return parseTimePoint(v, "%T");
  } catch (e) {
    throw new RecordInputError((e as Error).message.replace(/^%T: /, "%T timestamp "), undefined, TEMPLATE_HINT);
  }
}

/** What to do about a line the template does not read. */
const TEMPLATE_HINT =
  "every line must match the template, its literal text included: --on-error skip leaves out the lines that do not (with a warning), and --dry-run checks a whole input without sending anything";

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
