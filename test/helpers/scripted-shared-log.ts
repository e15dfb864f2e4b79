/**
 * A SharedLog in memory that sequences groups by the rules of the PostgreSQL sequencer
 * (storage/pg/sequencer-sql.ts: chains skipped after a refusal, the fencing token then
 * match_seq_num checked against what is stored, landing at the stored next seq num with the
 * stored last timestamp as the batch's floor, fence and trim applied), for the unit tests of
 * shared streams (store/shared-stream.ts, shared-streams.ts, shared-reader.ts).
 *
 * The test holds the answers it wants to order: with `holdAppends`, a group waits until
 * `answer()` (sequenced then, against what is stored then), `answerWith(result)` (a scripted
 * answer) or `fail(error)`; with `holdStates`, a read of stored states waits for
 * `answerStates()`. Other nodes' work is `appendElsewhere` and `trimElsewhere`. Every call is
 * counted.
 */

import { decodeLanded, encodeBatch } from "../../src/lite/storage/batch-codec.js";
import type {
  AppendOutcome,
  GroupResult,
  PlannedAppend,
  SharedLog,
  StoredState,
} from "../../src/lite/storage/seams.js";
import type {
  BatchHead,
  PartialStreamConfig,
  StoredBatch,
  StreamMeta,
  StreamStateRecord,
} from "../../src/lite/storage/types.js";
import { BatchCache } from "../../src/lite/store/batch-cache.js";
import { SharedStream } from "../../src/lite/store/shared-stream.js";
import { resolveStreamConfig } from "../../src/lite/store/stream-config.js";

interface Row {
  first: number;
  planned: number;
  floor: number;
  count: number;
  arrival: number;
  data: Uint8Array;
}

interface Stored {
  state: StoredState;
  rows: Row[];
}

interface HeldAppend {
  id: number;
  group: PlannedAppend[];
  arrival: number;
  resolve: (r: GroupResult) => void;
  reject: (e: unknown) => void;
}

interface HeldStates {
  ids: number[];
  resolve: (m: Map<number, StoredState>) => void;
  reject: (e: unknown) => void;
}

export function storedState(nextSeq = 0, more: Partial<StoredState> = {}): StoredState {
  return {
    nextSeq,
    lastTimestamp: 0,
    fencingToken: "",
    trimPoint: 0,
    removedBelow: 0,
    lastArrival: 0,
    live: true,
    ...more,
  };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

export class ScriptedSharedLog implements SharedLog {
  readonly streams = new Map<number, Stored>();
  /** Groups wait for answer(), answerWith() or fail(). */
  holdAppends = false;
  /** Reads of stored states wait for answerStates(). */
  holdStates = false;
  /** Every group sent, in order. */
  readonly groups: PlannedAppend[][] = [];
  /** The ids of every read of stored states, in order. */
  readonly stateReads: number[][] = [];
  /** Every readBatches call: [fromSeq, maxBatches]. */
  readonly batchReads: [number, number][] = [];
  private readonly heldAppends: HeldAppend[] = [];
  private readonly heldStates: HeldStates[] = [];

  constructor(ids: number[] = [1]) {
    for (const id of ids) this.streams.set(id, { state: storedState(), rows: [] });
  }

  state(id = 1): StoredState {
    return this.stream(id).state;
  }

  private stream(id: number): Stored {
    const s = this.streams.get(id);
    if (!s) throw new Error(`no stream ${id} in the script`);
    return s;
  }

  append(id: number, group: PlannedAppend[], arrival: number): Promise<GroupResult> {
    this.groups.push(group);
    if (!this.holdAppends) return Promise.resolve().then(() => this.sequence(id, group, arrival));
    return new Promise((resolve, reject) => this.heldAppends.push({ id, group, arrival, resolve, reject }));
  }

  /** Groups sent and not answered yet. */
  get waiting(): number {
    return this.heldAppends.length;
  }

  /** Answers the oldest held group as the database would now; resolves once the node has taken the answer. */
  async answer(): Promise<GroupResult> {
    const h = this.take();
    const result = this.sequence(h.id, h.group, h.arrival);
    h.resolve(result);
    await turn();
    return result;
  }

  /** Answers the oldest held group with `result` as given (nothing is stored). */
  async answerWith(result: GroupResult): Promise<void> {
    this.take().resolve(result);
    await turn();
  }

  /** The oldest held group's statement fails with `e` (nothing is stored). */
  async fail(e: unknown): Promise<void> {
    this.take().reject(e);
    await turn();
  }

  private take(): HeldAppend {
    const h = this.heldAppends.shift();
    if (!h) throw new Error("no group is waiting for an answer");
    return h;
  }

  /** Sequences `group` against what is stored, as svc_append does. */
  sequence(id: number, group: PlannedAppend[], arrival: number): GroupResult {
    const s = this.streams.get(id);
    if (!s) return { refused: "gone", outcomes: [], state: storedState() };
    if (!s.state.live) return { refused: "deleting", outcomes: [], state: { ...s.state } };
    const failed = new Set<number>();
    const st = s.state;
    const outcomes: AppendOutcome[] = group.map((p) => {
      if (failed.has(p.chain)) return { ok: false, skipped: true };
      if (p.fencingToken !== undefined && p.fencingToken !== st.fencingToken) {
        failed.add(p.chain);
        return { ok: false, fencingToken: st.fencingToken };
      }
      if (p.matchSeqNum !== undefined && p.matchSeqNum !== st.nextSeq) {
        failed.add(p.chain);
        return { ok: false, nextSeq: st.nextSeq };
      }
      const first = st.nextSeq;
      const floor = st.lastTimestamp;
      for (const c of p.commands) {
        if (c.fence !== undefined) st.fencingToken = c.fence;
        else if (c.trim !== undefined) st.trimPoint = Math.max(st.trimPoint, Math.min(c.trim, first + c.index + 1));
      }
      s.rows.push({ first, planned: p.plannedFirst, floor, count: p.count, arrival, data: p.data });
      st.nextSeq += p.count;
      st.lastTimestamp = Math.max(st.lastTimestamp, p.lastTimestamp);
      st.lastArrival = Math.max(st.lastArrival, arrival);
      return { ok: true, firstSeq: first, timestampFloor: floor };
    });
    return { outcomes, state: { ...st } };
  }

  /** Another node appends `count` records (timestamps `ts`) in one batch, arrived at `arrival` (ms). */
  appendElsewhere(count: number, ts = 0, id = 1, arrival = Date.now()): void {
    const st = this.stream(id).state;
    const records = Array.from({ length: count }, (_, i) => ({
      seqNum: st.nextSeq + i,
      timestamp: ts,
      headers: [],
      body: new Uint8Array([i]),
    }));
    const data = encodeBatch({ firstSeq: st.nextSeq, arrival, lastTimestamp: ts, records });
    const plan = { count, chain: 1, matchSeqNum: undefined, fencingToken: undefined, lastTimestamp: ts };
    this.sequence(id, [{ ...plan, commands: [], plannedFirst: st.nextSeq, data }], arrival);
  }

  /** Another node trims to `point` and the sweep carries it out: the mark rises, the batches wholly below it go. */
  trimElsewhere(point: number, id = 1): void {
    const s = this.stream(id);
    s.state.trimPoint = Math.max(s.state.trimPoint, point);
    s.state.removedBelow = Math.max(s.state.removedBelow, point);
    s.rows = s.rows.filter((r) => r.first + r.count > point);
  }

  /** Findings of lost records, as a node would keep them (by stream id). */
  readonly wentBack = new Map<number, { from: number; to: number }>();

  async recordWentBack(id: number, from: number, to: number): Promise<void> {
    this.wentBack.set(id, { from, to });
  }

  async states(ids: number[]): Promise<Map<number, StoredState>> {
    this.stateReads.push(ids);
    if (this.holdStates) return new Promise((resolve, reject) => this.heldStates.push({ ids, resolve, reject }));
    return this.statesNow(ids);
  }

  private statesNow(ids: number[]): Map<number, StoredState> {
    const out = new Map<number, StoredState>();
    for (const id of ids) {
      const s = this.streams.get(id);
      if (s) out.set(id, { ...s.state });
    }
    return out;
  }

  /** Reads of stored states sent and not answered yet. */
  get statesWaiting(): number {
    return this.heldStates.length;
  }

  /** Answers the oldest held read of stored states with what is stored now (or fails it with `error`). */
  async answerStates(error?: unknown): Promise<void> {
    const h = this.heldStates.shift();
    if (!h) throw new Error("no read of stored states is waiting");
    if (error === undefined) h.resolve(this.statesNow(h.ids));
    else h.reject(error);
    await turn();
  }

  async readBatches(id: number, fromSeq: number, maxBatches: number): Promise<StoredBatch[]> {
    this.batchReads.push([fromSeq, maxBatches]);
    return this.rowsFrom(id, fromSeq, maxBatches).map((r) => decodeLanded(r.first, r.planned, r.floor, r.data));
  }

  private rowsFrom(id: number, fromSeq: number, max: number): Row[] {
    return (this.streams.get(id)?.rows ?? []).filter((r) => r.first + r.count > fromSeq).slice(0, max);
  }

  async findTimestamp(): Promise<number | undefined> {
    return undefined;
  }

  async batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]> {
    return this.rowsFrom(id, fromSeq, maxBatches).map((r) => ({
      firstSeq: r.first,
      count: r.count,
      arrival: r.arrival,
    }));
  }

  async deleteBatchesBelow(id: number, seq: number, max: number): Promise<{ batches: number; metered: number }> {
    const s = this.stream(id);
    s.state.removedBelow = Math.max(s.state.removedBelow, seq);
    const gone = s.rows.filter((r) => r.first + r.count <= seq).slice(0, max);
    s.rows = s.rows.filter((r) => !gone.includes(r));
    return { batches: gone.length, metered: 0 };
  }
}

export function streamMeta(id = 1, config: PartialStreamConfig = {}): StreamMeta {
  return {
    basin: "b",
    name: `s${id}`,
    id,
    config: resolveStreamConfig(
      { timestamping: { mode: "client-prefer", uncapped: true }, retention_policy: { infinite: {} }, ...config },
      null,
    ),
    createdAt: new Date(0).toISOString(),
    deletedAt: null,
    requestKey: null,
    rev: 0,
  };
}

/** A shared stream of `log` (stream 1 unless said), knowing `known` (the stored state unless given). */
export function sharedStream(
  log: ScriptedSharedLog,
  opts: {
    id?: number;
    known?: StreamStateRecord;
    cache?: BatchCache;
    onTrim?: () => void;
    config?: PartialStreamConfig;
  } = {},
): { stream: SharedStream; cache: BatchCache } {
  const id = opts.id ?? 1;
  const cache = opts.cache ?? new BatchCache(1 << 20);
  const { live: _live, ...stored } = log.state(id);
  const stream = new SharedStream(streamMeta(id, opts.config), opts.known ?? stored, {
    log,
    cache,
    onTrim: opts.onTrim ?? (() => {}),
    readState: async (i) => (await log.states([i])).get(i),
    clock: { now: () => Date.now(), unsure: () => undefined, offsetMs: () => 0, uncertaintyMs: () => 0 },
  });
  return { stream, cache };
}
