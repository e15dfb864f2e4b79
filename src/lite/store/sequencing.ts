/**
 * Pure sequencing of one append (protocol.md §8.3–§8.5): condition checks, seq nums,
 * timestamps, and the effect of command records. No I/O. A local stream applies it to its own
 * state; a shared stream plans with it and the database applies the same rules to what is
 * stored (storage/pg/sequencer.ts).
 */
import {
  FencingTokenMismatchError,
  SeqNumMismatchError,
  type SvcError,
  serverError,
  serverFail,
} from "../../errors.js";
import { checkCommand, isCommandRecord } from "../../rules/commands.js";
import type { AppendInput, SequencedRecord } from "../../types.js";
import type { ResolvedStreamConfig, StreamStateRecord } from "../storage/types.js";

/** The rules as one object, so the test faults (store/faults.ts) can stand in for them. */
export interface Sequencing {
  checkConditions(state: StreamStateRecord, input: AppendInput): SvcError | undefined;
  checkTimestamps(config: ResolvedStreamConfig, input: AppendInput): SvcError | undefined;
  sequence(
    state: StreamStateRecord,
    config: ResolvedStreamConfig,
    input: AppendInput,
    now: number,
  ): { records: SequencedRecord[]; state: StreamStateRecord };
}

/**
 * §8.3: the fencing token is checked first (only when the input carries one), then
 * match_seq_num against the next ASSIGNABLE position (in-flight appends included).
 */
export function checkConditions(state: StreamStateRecord, input: AppendInput): SvcError | undefined {
  if (input.fencingToken !== undefined && input.fencingToken !== state.fencingToken)
    return new FencingTokenMismatchError(state.fencingToken);
  if (input.matchSeqNum !== undefined && input.matchSeqNum !== state.nextSeq)
    return new SeqNumMismatchError(state.nextSeq);
  return undefined;
}

/** §8.4 client-require: the whole batch fails when any record lacks a timestamp. */
export function checkTimestamps(config: ResolvedStreamConfig, input: AppendInput): SvcError | undefined {
  if (config.timestamping.mode !== "client-require") return undefined;
  if (input.records.every((r) => r.timestamp !== undefined)) return undefined;
  return serverError("invalid", "record timestamp was required but was missing");
}

/**
 * Assigns consecutive seq nums and timestamps (§8.4: base by mode, capped at `now` unless
 * uncapped, never below the previous maximum) and applies fence/trim in record order (§8.5:
 * trim point = min(p, own seq + 1), and it only moves forward).
 */
export function sequence(
  state: StreamStateRecord,
  config: ResolvedStreamConfig,
  input: AppendInput,
  now: number,
): { records: SequencedRecord[]; state: StreamStateRecord } {
  const { mode, uncapped } = config.timestamping;
  let prev = state.lastTimestamp;
  let token = state.fencingToken;
  let trimPoint = state.trimPoint;
  const records: SequencedRecord[] = new Array(input.records.length);
  for (let i = 0; i < input.records.length; i++) {
    const r = input.records[i]!;
    const seqNum = state.nextSeq + i;
    let ts = mode === "arrival" ? now : (r.timestamp ?? now);
    if (!uncapped && ts > now) ts = now;
    if (ts < prev) ts = prev;
    prev = ts;
    records[i] = { seqNum, timestamp: ts, headers: r.headers, body: r.body };
    if (isCommandRecord(r)) {
      const cmd = checkCommand(r, serverFail("invalid"));
      if (cmd.op === "fence") token = cmd.token;
      else {
        const own = BigInt(seqNum + 1);
        const point = Number(cmd.trimPoint < own ? cmd.trimPoint : own);
        if (point > trimPoint) trimPoint = point;
      }
    }
  }
  return {
    records,
    state: {
      nextSeq: state.nextSeq + records.length,
      lastTimestamp: prev,
      fencingToken: token,
      trimPoint,
      lastArrival: Math.max(now, state.lastArrival),
    },
  };
}

/** The command records of an input, by index: what the database applies to the stored state. */
export function commandsOf(input: AppendInput): { index: number; fence?: string; trim?: number }[] {
  const out: { index: number; fence?: string; trim?: number }[] = [];
  input.records.forEach((r, index) => {
    if (!isCommandRecord(r)) return;
    const cmd = checkCommand(r, serverFail("invalid"));
    if (cmd.op === "fence") out.push({ index, fence: cmd.token });
    else
      out.push({
        index,
        trim: cmd.trimPoint > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(cmd.trimPoint),
      });
  });
  return out;
}

export const SEQUENCING: Sequencing = { checkConditions, checkTimestamps, sequence };
