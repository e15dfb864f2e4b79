/**
 * Client-side record filters for `read` and `tail` (docs/design/cli.md, "Reading"): `--grep
 * PATTERN` (a regular expression over the body as lossy UTF-8) and `--filter header:NAME=VALUE`
 * (repeatable, all must hold). `header:NAME` alone tests presence; a leading `!` negates a filter.
 */
import { lossyUtf8 } from "../bytes.js";
import { clientError } from "../errors.js";
import type { SequencedRecord } from "../types.js";

export type RecordFilter = (r: SequencedRecord) => boolean;

export function parseFilter(text: string): RecordFilter {
  const negate = text.startsWith("!");
  const spec = negate ? text.slice(1) : text;
  const m = /^header:([^=]+)(?:=(.*))?$/s.exec(spec);
  if (!m)
    throw clientError(
      "usage",
      `--filter ${JSON.stringify(text)}: expected header:NAME=VALUE or header:NAME, optionally prefixed with !`,
    );
  const name = Buffer.from(m[1]!, "utf8");
  const value = m[2] === undefined ? undefined : Buffer.from(m[2], "utf8");
  const test: RecordFilter = (r) =>
    r.headers.some(
      (h) => Buffer.from(h.name).equals(name) && (value === undefined || Buffer.from(h.value).equals(value)),
    );
  return negate ? (r) => !test(r) : test;
}

export function grepFilter(pattern: string): RecordFilter {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch (e) {
    throw clientError("usage", `--grep ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
  return (r) => re.test(lossyUtf8(r.body));
}

export function allOf(filters: RecordFilter[]): RecordFilter | undefined {
  if (filters.length === 0) return undefined;
  return (r) => filters.every((f) => f(r));
}
