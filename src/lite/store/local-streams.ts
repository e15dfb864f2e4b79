/**
 * Live streams on a local backend (lmdb, memory): loaded from the stored state, with the
 * recovery check, and the test faults wrapped around them when a test asks for one.
 */

import { streamOf } from "../log.js";
import type { LocalLog } from "../storage/seams.js";
import type { StreamMeta, StreamStateRecord } from "../storage/types.js";
import { TEST_FAULT } from "../test-fault.js";
import { faultyLog, faultySequencing, faultyStream } from "./faults.js";
import { initialState, type LiveStream, type StreamHooks, type StreamKind } from "./live-stream.js";
import { LocalStream } from "./local-stream.js";
import { SEQUENCING } from "./sequencing.js";

export class LocalStreams implements StreamKind<"local"> {
  private readonly log: LocalLog;
  private readonly rules = TEST_FAULT ? faultySequencing(TEST_FAULT) : SEQUENCING;

  constructor(
    log: LocalLog,
    private readonly hooks: StreamHooks,
  ) {
    this.log = TEST_FAULT ? faultyLog(log, TEST_FAULT) : log;
  }

  load(meta: StreamMeta): LiveStream<"local"> {
    const state = this.log.getState(meta.id) ?? initialState(Date.parse(meta.createdAt));
    this.checkRecovered(meta, state);
    const s = new LocalStream(meta, state, this.log, this.hooks.onTrim, this.rules, this.hooks.now);
    return TEST_FAULT ? faultyStream(s, TEST_FAULT) : s;
  }

  check(s: LiveStream): "ok" | "reload" {
    return (s as LocalStream).broken ? "reload" : "ok";
  }

  /** A state broken by a failed write is reloaded only once its last write has settled. */
  beforeReload(s: LiveStream): Promise<void> {
    return (s as LocalStream).writesSettled();
  }

  async close(): Promise<void> {}

  /** The stored tail must cover the stored data; batch and state share a transaction. */
  private checkRecovered(meta: StreamMeta, state: StreamStateRecord): void {
    const last = this.log.lastBatch(meta.id);
    if (!last) return;
    const end = last.firstSeq + last.records.length;
    if (end > state.nextSeq) {
      this.hooks.log(
        `recovery: stream ${streamOf(meta.basin, meta.name)} state tail ${state.nextSeq} is behind its data (${end}); using the data`,
      );
      state.nextSeq = end;
      state.lastTimestamp = last.lastTimestamp;
    }
  }
}
