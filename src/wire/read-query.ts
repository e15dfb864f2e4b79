/**
 * The query string of a read (protocol.md §2.3 B8, §7.2-§7.5), the one codec of both sides: the
 * client encodes what it asks for, lite decodes what it is asked.
 *
 *   seq_num=u64 | timestamp=u64 | tail_offset=u64     at most one start (none: the tail)
 *   count=u64  bytes=u64  until=u64  wait=u32        limits
 *   clamp=true|false                                  a start past the tail is clamped to it
 *
 * Values are decimal integers that are safe in a JS number (anything else is refused, never
 * rounded); a parameter given twice is refused. `clamp` is sent only when true.
 */
import type { Fail } from "../errors.js";
import type { ReadParams, ReadStart } from "../types.js";

const U32_MAX = 0xffff_ffff;

/** The query string (without `?`) asking for `p`. */
export function encodeReadQuery(p: ReadParams): string {
  const q = new URLSearchParams();
  const start = (p.start ?? {}) as { seqNum?: number; timestamp?: number; tailOffset?: number };
  const put = (name: string, v: number | undefined): void => {
    if (v !== undefined) q.set(name, String(v));
  };
  put("seq_num", start.seqNum);
  put("timestamp", start.timestamp);
  put("tail_offset", start.tailOffset);
  put("count", p.count);
  put("bytes", p.bytes);
  put("until", p.until);
  put("wait", p.wait);
  if (p.clamp) q.set("clamp", "true");
  return q.toString();
}

/** How a decoder reports a bad parameter (`query`: its value) or a bad combination (`invalid`). */
interface QueryFails {
  query: Fail;
  invalid: Fail;
}

/** The one value of `name`, if given; a repeated parameter fails. */
export function oneParam(q: URLSearchParams, name: string, fail: Fail): string | undefined {
  const all = q.getAll(name);
  if (all.length > 1) throw fail(`query parameter ${name} is repeated`);
  return all[0];
}

/** A u64 query value as a safe integer (at most `max`); anything else fails. */
export function u64Param(
  q: URLSearchParams,
  name: string,
  fail: Fail,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const v = oneParam(q, name, fail);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw fail(`${name} must be a non-negative integer`);
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n > max) throw fail(`${name} is too large`);
  return n;
}

function boolParam(q: URLSearchParams, name: string, fail: Fail): boolean | undefined {
  const v = oneParam(q, name, fail);
  if (v === undefined) return undefined;
  if (v === "true") return true;
  if (v === "false") return false;
  throw fail(`${name} must be true or false`);
}

/** The read a query string asks for; more than one start → `invalid`. */
export function decodeReadQuery(q: URLSearchParams, fails: QueryFails): ReadParams {
  const starts: ReadStart[] = [];
  const seqNum = u64Param(q, "seq_num", fails.query);
  const timestamp = u64Param(q, "timestamp", fails.query);
  const tailOffset = u64Param(q, "tail_offset", fails.query);
  if (seqNum !== undefined) starts.push({ seqNum });
  if (timestamp !== undefined) starts.push({ timestamp });
  if (tailOffset !== undefined) starts.push({ tailOffset });
  if (starts.length > 1) throw fails.invalid("at most one of seq_num, timestamp and tail_offset may be given");
  const p: ReadParams = {};
  if (starts[0]) p.start = starts[0];
  const set = <K extends keyof ReadParams>(k: K, v: ReadParams[K] | undefined): void => {
    if (v !== undefined) p[k] = v;
  };
  set("clamp", boolParam(q, "clamp", fails.query));
  set("count", u64Param(q, "count", fails.query));
  set("bytes", u64Param(q, "bytes", fails.query));
  set("until", u64Param(q, "until", fails.query));
  set("wait", u64Param(q, "wait", fails.query, U32_MAX));
  return p;
}
