/**
 * Appends one command record (fence, trim) with optional conditions, and prints what happened:
 * the record's own position and the tail, labelled as such; `--json` prints the ack.
 */
import type { StreamClient } from "../../client/stream.js";
import { ackToJson, commandAckLine } from "../../format/record-ack.js";
import type { AppendInput, AppendRecord } from "../../types.js";
import type { Context } from "../context.js";
import { attempt, OperationError } from "../failure.js";
import { type Conditions, conditionHint, resolveMatch } from "../flags/conditions.js";

export async function appendCommandRecord(
  ctx: Context,
  stream: StreamClient,
  uri: string,
  op: string,
  record: AppendRecord,
  conds: Conditions,
  what: string,
): Promise<void> {
  const ack = await attempt(op, uri, async () => {
    const input: AppendInput = { records: [record] };
    const match = await resolveMatch(conds, stream);
    if (match !== undefined) input.matchSeqNum = match;
    if (conds.fencingToken !== undefined) input.fencingToken = conds.fencingToken;
    return stream.append(input);
  }).catch((e: unknown) => {
    const hint = e instanceof OperationError ? conditionHint(e.error, uri, conds.fencingToken) : undefined;
    throw hint && e instanceof OperationError ? new OperationError(e.operation, e.resource, e.error, hint) : e;
  });
  ctx.out.success(commandAckLine(what, ack));
  if (ctx.flags.json) await ctx.out.jsonLine(ackToJson(ack, false));
}
