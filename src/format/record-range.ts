/**
 * `--range A:B` (after Redpanda's rpk; docs/design/cli.md, "Reading"): a start and an exclusive end
 * in one flag.
 *
 *   100:200        seq nums 100 ≤ s < 200      100:   from 100 on      :200   from 0 to 200
 *   @-1h:now       timestamps from an hour ago until now
 *   @2026-01-01:1h from that date for one hour (an end duration is relative to the start)
 *   @T1:@T2 / @T1:T2   times as epoch ms, RFC 3339, YYYY-MM-DD or now
 *
 * RFC 3339 contains colons, so the split point is the colon where both sides parse.
 */
import { clientError } from "../errors.js";
import { parseDuration } from "./duration.js";
import { parseTimePoint } from "./record-time.js";

type ParsedRange = { kind: "seq"; start: number; end?: number } | { kind: "time"; start: number; end?: number };

function seqPart(text: string, flag: string): number | undefined {
  if (text === "") return undefined;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw clientError("usage", `${flag}: ${JSON.stringify(text)} is not a sequence number`);
  return Number(text);
}

function timeStart(text: string, now: number): number {
  if (text.startsWith("-")) return Math.max(0, now - parseDuration(text.slice(1)));
  return parseTimePoint(text, "--range", { now });
}

function timeEnd(text: string, start: number, now: number): number | undefined {
  if (text === "") return undefined;
  const t = text.startsWith("@") ? text.slice(1) : text;
  if (t.startsWith("-")) return Math.max(0, now - parseDuration(t.slice(1)));
  if (/^\d+\s*[A-Za-z]/.test(t)) return start + parseDuration(t);
  return parseTimePoint(t, "--range", { now });
}

export function parseRange(text: string, now = Date.now()): ParsedRange {
  const flag = `--range ${JSON.stringify(text)}`;
  if (!text.startsWith("@")) {
    const parts = text.split(":");
    if (parts.length !== 2)
      throw clientError("usage", `${flag}: expected A:B, e.g. 100:200, @-1h:now or @2026-01-01:1h`);
    const start = seqPart(parts[0]!, flag) ?? 0;
    const end = seqPart(parts[1]!, flag);
    if (end !== undefined && end <= start) throw clientError("usage", `${flag}: the end must be after the start`);
    return end === undefined ? { kind: "seq", start } : { kind: "seq", start, end };
  }
  const body = text.slice(1);
  let lastError: unknown;
  for (let i = body.length; i >= 0; i--) {
    if (i < body.length && body[i] !== ":") continue;
    const a = body.slice(0, i);
    const b = i < body.length ? body.slice(i + 1) : "";
    if (a === "") continue;
    try {
      const start = timeStart(a, now);
      const end = timeEnd(b, start, now);
      if (end !== undefined && end <= start) throw clientError("usage", `${flag}: the end must be after the start`);
      return end === undefined ? { kind: "time", start } : { kind: "time", start, end };
    } catch (e) {
      lastError = e;
    }
  }
  throw lastError ?? clientError("usage", `${flag}: expected @START:END`);
}
