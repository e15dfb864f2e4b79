/**
 * The names of stored metric counts (seams.ts `MetricCount`): `op:<operation>` for requests
 * (of the account, scope "", or of a basin), and a basin's `append-ops`, `append-bytes`,
 * `read-ops`, `read-bytes`; and the counts of one minute's tallies under those names.
 */
import type { MetricCount } from "./seams.js";

export const COUNT_OP = "op:";
export const COUNT_FIELDS = {
  "append-ops": "appendOps",
  "append-bytes": "appendBytes",
  "read-ops": "readOps",
  "read-bytes": "readBytes",
} as const;

/** One minute's tallies: requests by operation, and per basin its requests, appends and reads. */
export interface MinuteTally {
  t: number;
  ops: Record<string, number>;
  basins: Record<
    string,
    { ops: Record<string, number>; appendOps: number; appendBytes: number; readOps: number; readBytes: number }
  >;
}

/** The counts a tally holds (zeros left out). */
export function countsOf(b: MinuteTally): MetricCount[] {
  const out: MetricCount[] = [];
  const push = (scope: string, name: string, n: number): void => {
    if (n !== 0) out.push({ t: b.t, scope, name, n });
  };
  for (const [op, n] of Object.entries(b.ops)) push("", COUNT_OP + op, n);
  for (const [basin, e] of Object.entries(b.basins)) {
    for (const [op, n] of Object.entries(e.ops)) push(basin, COUNT_OP + op, n);
    for (const [name, field] of Object.entries(COUNT_FIELDS)) push(basin, name, e[field]);
  }
  return out;
}
