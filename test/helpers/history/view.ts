/**
 * One stream of a history as the checks see it (check.ts, check-time.ts): the final read, and
 * where each append landed (from its ack, or for an indefinite one from the final read).
 */
import type { AppendOp, FinalStream, Op } from "./types.js";

export function isDataKey(key: string): boolean {
  return !key.startsWith("fence:") && !key.startsWith("trim:") && !key.startsWith("command:");
}

/** Where each append landed: from its ack, or (indefinite ones) from the final stream. */
export interface Placement {
  op: AppendOp;
  start: number;
  /** Records of the batch that are present in the final stream (a trimmed prefix may be gone). */
  present: number;
}

export interface StreamView {
  stream: string;
  ops: Op[];
  appends: AppendOp[];
  final: FinalStream;
  /** seq → key for every position whose content is known (final read + acked batches). */
  truth: Map<number, string>;
  /** data key → the append that wrote it. */
  owner: Map<string, AppendOp>;
  /** Appends that took effect (acked, or indefinite and found), with their start. */
  placed: Map<number, Placement>;
  /** data key → its seq num in the final read. */
  at: Map<string, number>;
}

export type Report = (check: string, message: string, ops?: number[]) => void;

export function buildView(stream: string, ops: Op[], final: FinalStream, report: Report): StreamView {
  const appends = ops.filter((o): o is AppendOp => o.kind === "append");
  const owner = new Map<string, AppendOp>();
  for (const a of appends)
    for (const k of a.records)
      if (isDataKey(k)) {
        if (owner.has(k))
          report("history", `${stream}: two appends carry record ${k} (the workload must make bodies unique)`, [
            owner.get(k)!.id,
            a.id,
          ]);
        owner.set(k, a);
      }
  const at = new Map<string, number>();
  const truth = new Map<number, string>();
  for (const r of final.records) {
    truth.set(r.seq, r.key);
    if (!isDataKey(r.key)) continue;
    if (at.has(r.key)) report("C3", `${stream}: record ${r.key} stored twice (seq ${at.get(r.key)} and ${r.seq})`);
    else at.set(r.key, r.seq);
  }
  const placed = new Map<number, Placement>();
  for (const a of appends) {
    const found = a.records
      .map((k, i) => (isDataKey(k) && at.has(k) ? at.get(k)! - i : undefined))
      .filter((x): x is number => x !== undefined);
    const present = found.length;
    if (a.outcome === "ok" && a.start !== undefined) placed.set(a.id, { op: a, start: a.start, present });
    else if (a.outcome === "info" && present > 0) placed.set(a.id, { op: a, start: found[0]!, present });
    if (a.outcome === "ok" && a.start !== undefined) {
      a.records.forEach((k, i) => {
        const seq = a.start! + i;
        const known = truth.get(seq);
        if (known === undefined) truth.set(seq, k);
        else if (known !== k)
          report(
            "C1",
            `${stream}: acked record ${seq} (op ${a.id}) is ${JSON.stringify(k).slice(0, 60)} but the stream holds ${JSON.stringify(known).slice(0, 60)}`,
            [a.id],
          );
      });
    }
  }
  return { stream, ops, appends, final, truth, owner, placed, at };
}
