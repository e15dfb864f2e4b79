/**
 * A stream on a shared backend over a scripted store, for the read engine's trim-gap
 * regressions: the store holds `before` until the read's second look at storage, when another
 * node's trim has landed (`stateAfter`) and the sweep has removed what lay below it (`after`).
 */
import type { SharedLog, StoredState } from "../../src/lite/storage/seams.js";
import type { StoredBatch, StreamStateRecord } from "../../src/lite/storage/types.js";
import { BatchCache } from "../../src/lite/store/batch-cache.js";
import { ReadFeed } from "../../src/lite/store/read-feed.js";
import { planRead } from "../../src/lite/store/read-plan.js";
import { SharedStream } from "../../src/lite/store/shared-stream.js";
import { resolveStreamConfig } from "../../src/lite/store/stream-config.js";

const meta = {
  basin: "b",
  name: "s",
  id: 1,
  config: resolveStreamConfig({ retention_policy: { infinite: {} } }, null),
  createdAt: new Date(0).toISOString(),
  deletedAt: null,
  requestKey: null,
  rev: 0,
};

/** `count` one-byte records from `first`. */
export function batch(first: number, count: number): StoredBatch {
  return {
    firstSeq: first,
    arrival: 5,
    lastTimestamp: 5,
    records: Array.from({ length: count }, (_, i) => ({
      seqNum: first + i,
      timestamp: 5,
      headers: [],
      body: new Uint8Array([first + i]),
    })),
  };
}

export interface TrimMeanwhile {
  before: StoredBatch[];
  after: StoredBatch[];
  /** The stored tail before (trim point 0), and the tail and trim point after. */
  tail: number;
  stateAfter: { nextSeq: number; trimPoint: number };
  /** What the node knows of the stream when the read starts. */
  known: number;
  /** Batches in the node's cache when the read starts. */
  cached?: StoredBatch[];
}

/** The seq nums one unary read from `from` (up to 100 records) returns. */
export async function readWhileTrimmed(t: TrimMeanwhile, from: number): Promise<number[]> {
  let stored = t.before;
  let state: StoredState = {
    nextSeq: t.tail,
    lastTimestamp: 5,
    fencingToken: "",
    trimPoint: 0,
    removedBelow: 0,
    lastArrival: 5,
    live: true,
  };
  let reads = 0;
  const log: SharedLog = {
    append: async () => {
      throw new Error("no appends here");
    },
    states: async () => new Map([[1, state]]),
    recordWentBack: async () => {},
    readBatches: async (_id, at, max) => {
      if (++reads === 2) {
        stored = t.after;
        // The sweep carried the trim out: the removal mark is at the trim point.
        state = { ...state, ...t.stateAfter, removedBelow: t.stateAfter.trimPoint };
      }
      return stored.filter((b) => b.firstSeq + b.records.length > at).slice(0, max);
    },
    findTimestamp: async () => undefined,
    batchHeads: async () => [],
    deleteBatchesBelow: async () => ({ batches: 0, metered: 0 }),
  };
  const cache = new BatchCache(t.cached ? 1 << 20 : 0);
  if (t.cached) cache.put(1, t.cached);
  const known: StreamStateRecord = {
    nextSeq: t.known,
    lastTimestamp: t.known === 0 ? 0 : 5,
    fencingToken: "",
    trimPoint: 0,
    lastArrival: t.known === 0 ? 0 : 5,
  };
  const s = new SharedStream(meta, known, {
    log,
    cache,
    readState: async () => state,
    onTrim: () => {},
    clock: { now: () => Date.now(), unsure: () => undefined, offsetMs: () => 0, uncertaintyMs: () => 0 },
  });
  const feed = await ReadFeed.open(s, planRead({ start: { seqNum: from }, count: 100 }, true));
  try {
    const ev = await feed.next();
    if (ev?.type !== "batch") throw new Error(`the read answered ${ev?.type ?? "its end"}, not a batch`);
    return ev.records.map((r) => r.seqNum);
  } finally {
    feed.close();
  }
}
