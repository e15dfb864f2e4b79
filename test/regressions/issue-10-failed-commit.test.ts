/**
 * Bug (issue 10, found 2): a failed storage commit assigned sequence numbers twice. After a
 * failed commit the stream was marked broken and reloaded from storage while writes
 * sequenced behind the failed one were still pending; those committed afterwards, beyond the
 * hole the failed one left, so the reload saw a tail past a gap (`records 53..70 missing`)
 * and new appends were acknowledged at positions other records then occupied.
 *
 * Now storage writes a batch only when the stored tail is exactly at the batch's first seq num
 * (checked atomically), and a broken stream reloads only after its last write has settled.
 * The test fails one commit in the middle of a pipeline of appends on real lmdb storage.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LmdbStorage } from "../../src/lite/storage/lmdb.js";
import { MemoryStorage } from "../../src/lite/storage/memory.js";
import type { Storage, StoredBatch, StreamStateRecord } from "../../src/lite/storage/storage.js";
import { createBasin } from "../../src/lite/store/basins.js";
import { Store } from "../../src/lite/store/store.js";
import type { AppendAck } from "../../src/types.js";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

/** Makes the `failAt`-th appendBatch fail without writing anything, like a commit hitting ENOSPC. */
function flaky<S extends Storage>(storage: S, failAt: Set<number>): S {
  let calls = 0;
  const real = storage.appendBatch.bind(storage);
  storage.appendBatch = (id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void> => {
    calls++;
    if (failAt.has(calls)) return new Promise((_, reject) => setTimeout(() => reject(new Error("No space left on device")), 5));
    return real(id, batch, state);
  };
  return storage;
}

const body = (i: number): Uint8Array => new TextEncoder().encode(`record-${i}`);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

async function scenario(storage: Storage): Promise<void> {
  const store = new Store(storage);
  await createBasin(store, "basin-one", { create_stream_on_append: true, create_stream_on_read: false, default_stream_config: {} } as never, undefined);
  const acked = new Map<number, string>();
  let sent = 0;
  for (let round = 0; round < 3; round++) {
    const state = await store.stream("basin-one", "s", "append");
    const pending: Promise<void>[] = [];
    for (let k = 0; k < 30; k++) {
      const i = sent++;
      const { ack } = state.submit({ records: [{ headers: [], body: body(i) }] });
      pending.push(ack.then((a: AppendAck) => { acked.set(a.start.seqNum, `record-${i}`); }, () => undefined));
    }
    await Promise.all(pending);
  }
  // Every acknowledged record is at its acknowledged position; the stream has no gap.
  const state = await store.stream("basin-one", "s", "none");
  const seen = new Map<number, string>();
  let next = 0;
  for (const b of storage.readBatches(state.id, 0, 1000)) {
    for (const r of b.records) {
      expect(r.seqNum, "a gap or an overlap in the stored stream").toBe(next++);
      seen.set(r.seqNum, text(r.body));
    }
  }
  expect(next).toBe(state.tail.seqNum);
  for (const [seq, want] of acked) expect(seen.get(seq), `acked seq ${seq}`).toBe(want);
  expect(acked.size, "the round after the failures is acknowledged whole").toBeGreaterThanOrEqual(30);
  // And the stream still takes appends, right at its tail.
  const after = await state.append({ records: [{ headers: [], body: body(999) }] });
  expect(after.start.seqNum).toBe(next);
}

describe("issue 10: a failed commit never leaves a gap or reuses a seq num", () => {
  it("lmdb", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-failcommit-"));
    dirs.push(dir);
    const storage = flaky(new LmdbStorage(dir), new Set([12, 47]));
    try { await scenario(storage); } finally { await storage.close(); }
  });

  it("memory", async () => {
    await scenario(flaky(new MemoryStorage(), new Set([12, 47])));
  });
});
