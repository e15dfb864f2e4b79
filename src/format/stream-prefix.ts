/**
 * Records of several streams on one output (`svc tail` of several streams): text and template
 * lines start with the stream's label, `[app-1] `, on every line a record prints (a body with
 * newlines stays readable under `grep app-1`); JSON records get `basin` and `stream` fields
 * first. The label is the stream's name when every stream is in one basin, else `basin/stream`;
 * a name that is not one word is quoted (list-long.ts).
 */
import { quoteName } from "./list-long.js";

export function streamLabel(basin: string, stream: string, oneBasin: boolean): string {
  return `[${quoteName(oneBasin ? stream : `${basin}/${stream}`)}] `;
}

const NL = 0x0a;

/**
 * `rendered` (one record's bytes, ending with its delimiter) with `label` before its first
 * line and before each line after a newline inside it.
 */
export function prefixRecord(rendered: Uint8Array, label: Uint8Array): Buffer {
  const starts: number[] = [0];
  for (let i = 0; i < rendered.length - 1; i++) if (rendered[i] === NL) starts.push(i + 1);
  const out = Buffer.allocUnsafe(rendered.length + starts.length * label.length);
  let at = 0;
  for (let k = 0; k < starts.length; k++) {
    out.set(label, at);
    at += label.length;
    const end = k + 1 < starts.length ? starts[k + 1]! : rendered.length;
    out.set(rendered.subarray(starts[k]!, end), at);
    at += end - starts[k]!;
  }
  return out;
}

/** One JSON record (compact or `--pretty`) with `basin` and `stream` as its first fields. */
export function withStreamFields(json: string, basin: string, stream: string, pretty: boolean): string {
  if (!json.startsWith("{")) return json;
  const fields = pretty
    ? `\n  "basin": ${JSON.stringify(basin)},\n  "stream": ${JSON.stringify(stream)},`
    : `"basin":${JSON.stringify(basin)},"stream":${JSON.stringify(stream)},`;
  return `{${fields}${json.slice(1)}`;
}
