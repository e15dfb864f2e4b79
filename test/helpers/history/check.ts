/**
 * Direct checks of a recorded history (docs/design/reliability.md, "Direct checks"), O(n log n).
 * Acks reveal positions, so most of linearizability is checked without search; `searchCheck`
 * (search.ts) covers the rest. Each stream is checked on its own against its final full read.
 *
 *   C1 acked ranges sized right and disjoint; each acked batch at its range, byte for byte
 *   C2 no record of a definitely failed append is ever seen
 *   C3 no record twice, no phantom, indefinite batches all-or-nothing, final seq nums contiguous
 *   C4 real-time order: appends after completed ones, tails never behind completed ops,
 *      no read returns a record whose append was invoked after the read completed
 *   C5 match_seq_num: ok ⇒ start = match; 412 reports a tail possible inside the op's window
 *   C6 fencing: ok ⇒ the token current at start; 412 reports a token current inside the window
 *   C7 reads and read sessions: seq nums +1 from the start, contents = the stream's, tails
 *      reported never below what was delivered
 *   C8 trim: first seq = max over applied trims of min(point, own + 1) (an indefinite trim
 *            whose position is unknown may be among them); never moves back for reads
 *            (unless trims are asynchronous: History.meta)
 */

import { checkReads, checkRealTime, checkTrim } from "./check-time.js";
import { type AppendOp, asyncTrims, type History, type Violation } from "./types.js";
import { buildView, isDataKey, type Report, type StreamView } from "./view.js";

export interface CheckStats {
  ops: number;
  appends: number;
  acked: number;
  ackedRecords: number;
  indefinite: number;
  reads: number;
  sessions: number;
  streams: number;
}

export interface CheckResult {
  ok: boolean;
  violations: Violation[];
  stats: CheckStats;
}

const MAX_PER_CHECK = 20;

export function checkHistory(h: History): CheckResult {
  const violations: Violation[] = [];
  const count = new Map<string, number>();
  const report = (check: string, message: string, ops?: number[]): void => {
    const n = (count.get(check) ?? 0) + 1;
    count.set(check, n);
    if (n <= MAX_PER_CHECK) violations.push({ check, message, ...(ops ? { ops } : {}) });
  };
  const streams = [...new Set([...h.ops.map((o) => o.stream), ...Object.keys(h.final)])];
  for (const s of streams) {
    const final = h.final[s];
    if (!final) {
      report("final", `stream ${s} has ops but no final read`);
      continue;
    }
    const view = buildView(
      s,
      h.ops.filter((o) => o.stream === s),
      final,
      report,
    );
    checkFinal(view, report);
    checkAppends(view, report);
    checkRealTime(view, report, asyncTrims(h));
    checkReads(view, report, asyncTrims(h));
    checkTrim(view, report);
  }
  for (const [check, n] of count)
    if (n > MAX_PER_CHECK) violations.push({ check, message: `… and ${n - MAX_PER_CHECK} more` });
  const appends = h.ops.filter((o): o is AppendOp => o.kind === "append");
  const acked = appends.filter((a) => a.outcome === "ok");
  return {
    ok: violations.length === 0,
    violations,
    stats: {
      ops: h.ops.length,
      appends: appends.length,
      acked: acked.length,
      ackedRecords: acked.reduce((n, a) => n + a.records.length, 0),
      indefinite: h.ops.filter((o) => o.outcome === "info").length,
      reads: h.ops.filter((o) => o.kind === "read").length,
      sessions: h.ops.filter((o) => o.kind === "read-session").length,
      streams: streams.length,
    },
  };
}

function checkFinal(v: StreamView, report: Report): void {
  const { final, stream } = v;
  final.records.forEach((r, i) => {
    if (r.seq !== final.first + i)
      report("C3", `${stream}: final read not contiguous at index ${i}: seq ${r.seq}, expected ${final.first + i}`);
    if (isDataKey(r.key) && !v.owner.has(r.key))
      report("C3", `${stream}: phantom record ${JSON.stringify(r.key).slice(0, 60)} at ${r.seq}`);
  });
  if (final.first + final.records.length !== final.tail)
    report("C3", `${stream}: final read ends at ${final.first + final.records.length} but the tail is ${final.tail}`);
}

function checkAppends(v: StreamView, report: Report): void {
  const { stream, final } = v;
  const ranges: { start: number; end: number; id: number }[] = [];
  const finalAt = new Map(final.records.map((r) => [r.seq, r.key]));
  for (const a of v.appends) {
    if (a.outcome === "ok") {
      if (a.start === undefined || a.end === undefined) {
        report("C1", `${stream}: op ${a.id} acked without a range`, [a.id]);
        continue;
      }
      if (a.end - a.start !== a.records.length)
        report("C1", `${stream}: op ${a.id} acked ${a.start}..${a.end} for ${a.records.length} records`, [a.id]);
      if (a.end > final.tail)
        report(
          "C1",
          `${stream}: op ${a.id} acked up to ${a.end} but the final tail is ${final.tail} (acked records lost)`,
          [a.id],
        );
      ranges.push({ start: a.start, end: a.end, id: a.id });
      a.records.forEach((k, i) => {
        const seq = a.start! + i;
        if (seq < final.first || seq >= final.tail) return;
        const got = finalAt.get(seq);
        if (got !== k)
          report("C1", `${stream}: acked record ${seq} of op ${a.id} ${got === undefined ? "lost" : "differs"}`, [
            a.id,
          ]);
      });
      if (a.matchSeqNum !== undefined && a.start !== a.matchSeqNum)
        report("C5", `${stream}: op ${a.id} with match_seq_num ${a.matchSeqNum} landed at ${a.start}`, [a.id]);
    } else if (a.outcome === "fail") {
      if (a.records.some((k) => v.at.has(k)))
        report("C2", `${stream}: definitely failed op ${a.id} (${a.error}) was written`, [a.id]);
    } else {
      const p = v.placed.get(a.id);
      if (!p) continue;
      // All or nothing: the present records are contiguous at one offset and only a trimmed
      // prefix may be missing.
      const missing = a.records
        .map((k, i) => ({ k, seq: p.start + i }))
        .filter(({ k, seq }) => isDataKey(k) && finalAt.get(seq) !== k && seq >= final.first);
      if (missing.length > 0)
        report(
          "C3",
          `${stream}: indefinite op ${a.id} torn: ${missing.length} of ${a.records.length} records missing or moved`,
          [a.id],
        );
      ranges.push({ start: p.start, end: p.start + a.records.length, id: a.id });
    }
  }
  ranges.sort((x, y) => x.start - y.start);
  for (let i = 1; i < ranges.length; i++) {
    if (ranges[i]!.start < ranges[i - 1]!.end)
      report(
        "C1",
        `${stream}: ops ${ranges[i - 1]!.id} and ${ranges[i]!.id} overlap (${ranges[i - 1]!.start}..${ranges[i - 1]!.end} and ${ranges[i]!.start}..${ranges[i]!.end})`,
        [ranges[i - 1]!.id, ranges[i]!.id],
      );
  }
}
