/**
 * Ordering checker (docs/design/reliability.md, "Ordering and linearizability"), reusable by any
 * suite that can record a history:
 *
 *   const rec = new Recorder({ seed });
 *   await rec.append(client, "s", "unary", input, () => stream.append(input));
 *   await rec.read(client, "s", from, limit, () => stream.readBatch({ seqNum: from }, { count: limit }));
 *   const h = rec.history({ s: await readFinal(stream) });
 *   const verdict = verify(h);   // direct checks C1-C8, then the search checker
 *
 * A history is plain JSON (writeHistory/parseHistory: JSONL), so a failing one is kept as an
 * artifact and re-checked offline. Ops may come from several servers sharing one store (the
 * multi-node case): the checker only needs one monotonic clock (same host) and the final reads.
 */
import { type CheckResult, checkHistory } from "./check.js";
import { type SearchResult, searchCheck } from "./search.js";
import type { History } from "./types.js";

export { type CheckResult, type CheckStats, checkHistory } from "./check.js";
export {
  historyJsonl,
  historyLines,
  now,
  observed,
  parseHistory,
  Recorder,
  recordKey,
  writeHistory,
} from "./recorder.js";
export { type SearchResult, searchCheck } from "./search.js";
export * from "./types.js";
export { isDataKey } from "./view.js";

export interface Verdict {
  ok: boolean;
  direct: CheckResult;
  search: SearchResult;
  /** One line per problem, for an assertion message. */
  summary: string;
}

export function verify(h: History, searchBudgetMs = 60_000): Verdict {
  const direct = checkHistory(h);
  const search = searchCheck(h, searchBudgetMs);
  const lines = direct.violations.map((v) => `${v.check}: ${v.message}`);
  if (search.result !== "ok")
    lines.push(`search: ${search.result}${search.stream ? ` on ${search.stream}` : ""}: ${search.message ?? ""}`);
  return { ok: direct.ok && search.result === "ok", direct, search, summary: lines.join("\n") };
}
