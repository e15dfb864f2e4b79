/**
 * The appends of one shared stream queued on this node, as groups (group commit): one
 * statement per stream at a time carries everything queued meanwhile, up to 512 appends and
 * 8 MiB; each group is planned here (seq nums as this node expects them, timestamps before the
 * stored floor: sequencing.ts) and sequenced by the database (storage/pg/sequencer-sql.ts).
 */
import { FencingTokenMismatchError, SeqNumMismatchError, SvcError } from "../../errors.js";
import type { AppendAck, AppendInput, SequencedRecord } from "../../types.js";
import { encodeBatch } from "../storage/batch-codec.js";
import type { AppendOutcome, PlannedAppend } from "../storage/seams.js";
import type { ResolvedStreamConfig, StreamStateRecord } from "../storage/types.js";
import { OutcomeUnknown } from "../wire-error.js";
import { type Chain, earlierRefused } from "./live-stream.js";
import { commandsOf, sequence } from "./sequencing.js";

/** Appends per statement (group commit), and their input bytes. */
const MAX_GROUP = 512;
const MAX_GROUP_BYTES = 8 << 20;

/** One append waiting for its group. */
export interface Entry {
  input: AppendInput;
  /** When it was queued (performance.now()): its write's deadline counts from then. */
  since: number;
  chain: Chain | undefined;
  bytes: number;
  resolve: (ack: AppendAck) => void;
  reject: (e: unknown) => void;
  settled: Promise<void>;
  markSettled: () => void;
}

/** An append of a group as planned: what the database is sent, and its records as planned. */
export interface Planned {
  plan: PlannedAppend;
  records: SequencedRecord[];
}

/** How many of the queue's first entries form the next group. */
export function groupSize(queue: readonly Entry[]): number {
  let n = 0;
  let size = 0;
  while (n < queue.length && n < MAX_GROUP && (n === 0 || size + queue[n]!.bytes <= MAX_GROUP_BYTES))
    size += queue[n++]!.bytes;
  return n;
}

/**
 * The group planned from `known` on: seq nums in order from its tail, timestamps planned from 0
 * (the database raises them to the stored floor), one chain number per append session (appends
 * of no session each their own).
 */
export function planGroup(
  group: readonly Entry[],
  known: StreamStateRecord,
  config: ResolvedStreamConfig,
  now: number,
): Planned[] {
  const chains = new Map<Chain, number>();
  let next = known.nextSeq;
  return group.map((e, k) => {
    const { records, state } = sequence({ ...known, nextSeq: next, lastTimestamp: 0 }, config, e.input, now);
    const chain = e.chain
      ? (chains.get(e.chain) ?? chains.set(e.chain, chains.size + 1).get(e.chain)!)
      : MAX_GROUP + k + 1;
    const plan: PlannedAppend = {
      count: records.length,
      chain,
      matchSeqNum: e.input.matchSeqNum,
      fencingToken: e.input.fencingToken,
      lastTimestamp: state.lastTimestamp,
      commands: commandsOf(e.input),
      plannedFirst: next,
      data: encodeBatch({ firstSeq: next, arrival: now, lastTimestamp: state.lastTimestamp, records }),
    };
    next += records.length;
    return { plan, records };
  });
}

/** Fails one append (and, for a session's, the rest of its chain). */
export function settle(e: Entry, error: unknown): void {
  if (e.chain) e.chain.failed = true;
  e.reject(error);
  e.markSettled();
}

/** The error of an append the database refused. */
export function refusal(o: AppendOutcome): SvcError {
  if ("fencingToken" in o) return new FencingTokenMismatchError(o.fencingToken);
  if ("nextSeq" in o) return new SeqNumMismatchError(o.nextSeq);
  return earlierRefused();
}

/**
 * A group statement failed. When it may have committed (its answer lost), a session with
 * several inputs in it cannot be answered with a terminal frame: the inputs after the one it
 * names would count as never applied, yet they may be stored. Those sessions are cut off
 * instead (OutcomeUnknown), so their clients treat everything in flight as unknown; every
 * other append gets the failure itself.
 */
export function failGroup(group: readonly Entry[], e: unknown): void {
  const unknown = !(e instanceof SvcError) || e.sideEffects;
  const count = new Map<Chain, number>();
  for (const entry of group) if (entry.chain) count.set(entry.chain, (count.get(entry.chain) ?? 0) + 1);
  for (const entry of group) {
    const several = entry.chain !== undefined && count.get(entry.chain)! > 1;
    settle(
      entry,
      unknown && several
        ? new OutcomeUnknown(
            "the database may have stored these appends, but its answer was lost (the server's log says why)",
            e,
          )
        : e,
    );
  }
}
