/**
 * Bug: on PostgreSQL, the background sweep (every 2 s, on every node) read, for each stream with
 * a retention age, a trim point or delete-on-empty, a stored batch whole through the synchronous
 * read path (a blocking round trip, and up to a MiB) just to learn, most times, that nothing was
 * to be removed; and it went through all streams in one go, so every request, ack and heartbeat
 * of the node waited for the whole pass. (Found beside the metadata refresh of
 * pg-metadata-refresh-holds-event-loop.test.ts, which caused the quarter-second stalls measured there.)
 *
 * Now the sweep reads batch headers only (`batchHeads`, on PostgreSQL through the pool: the
 * event loop is not held, and only each value's first bytes travel), reads records only when
 * something is to be removed, and lets other work run between streams. The sweep's storage
 * calls are counted here per event-loop turn, on the in-memory storage (the sweep's code is the
 * same for every storage).
 */
import { describe, expect, it } from "vitest";
import { MemoryBackend } from "../../src/lite/storage/memory.js";
import { createBasin } from "../../src/lite/store/basins.js";
import { Janitor } from "../../src/lite/store/janitor.js";
import { Store } from "../../src/lite/store/store.js";
import { createStream } from "../../src/lite/store/streams.js";

const STREAMS = 40;

/** Counts the synchronous reads of `backend`, in total and per event-loop turn. */
function counted(backend: MemoryBackend): { total: Map<string, number>; maxPerTurn: () => number; stop: () => void } {
  const total = new Map<string, number>();
  let inTurn = 0;
  let max = 0;
  const wrap = (target: object, name: string): void => {
    const t = target as Record<string, (...a: unknown[]) => unknown>;
    const real = t[name]!.bind(target);
    t[name] = (...args: unknown[]) => {
      total.set(name, (total.get(name) ?? 0) + 1);
      max = Math.max(max, ++inTurn);
      return real(...args);
    };
  };
  for (const name of ["getBasin", "listBasins", "getStream", "listStreams"]) wrap(backend.catalog, name);
  for (const name of ["getState", "readBatches", "findTimestamp", "lastBatch"]) wrap(backend.log, name);
  let on = true;
  const turn = (): void => {
    inTurn = 0;
    if (on) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    total,
    maxPerTurn: () => max,
    stop: () => {
      on = false;
    },
  };
}

describe("the background sweep does not hold the event loop", () => {
  it("reads no records when nothing is to be removed, and yields between streams", async () => {
    const storage = new MemoryBackend();
    const store = new Store(storage);
    await createBasin(
      store,
      "sweep-basin",
      { create_stream_on_append: false, create_stream_on_read: false, default_stream_config: {} } as never,
      undefined,
    );
    for (let i = 0; i < STREAMS; i++) {
      await createStream(store, "sweep-basin", `s${i}`, { retention_policy: { age: 86_400 } }, undefined);
      const s = await store.stream("sweep-basin", `s${i}`, "none");
      await s.append({ records: [{ headers: [], body: new TextEncoder().encode(`record ${i}`) }] });
      await s.append({ records: [{ headers: [], body: new TextEncoder().encode(`record ${i} again`) }] });
    }
    const janitor = new Janitor(store, 3_600_000, () => {}, 0);
    const calls = counted(storage);
    try {
      await janitor.trigger();
    } finally {
      calls.stop();
      await janitor.stop();
    }
    expect(calls.total.get("listStreams"), "the sweep ran over the basin").toBeGreaterThan(0);
    expect(calls.total.get("readBatches") ?? 0, "records read by a sweep that removes nothing").toBe(0);
    expect(
      calls.maxPerTurn(),
      "storage reads in one event-loop turn (the sweep went through every stream at once)",
    ).toBeLessThanOrEqual(4);
    // And it still removes what is to be removed: a trim makes the first batch removable.
    const s0 = await store.stream("sweep-basin", "s0", "none");
    await s0.append({
      records: [
        {
          headers: [{ name: new Uint8Array(0), value: new TextEncoder().encode("trim") }],
          body: new Uint8Array(8).fill(0).map((_, k) => (k === 7 ? 1 : 0)),
        },
      ],
    });
    // The trim is due a sweep period after the sweep first saw it: its clock is moved past that.
    let now = Date.now();
    const again = new Janitor(
      store,
      3_600_000,
      () => {},
      0,
      () => now,
    );
    await again.trigger();
    now += 3_600_000;
    await again.trigger();
    await again.stop();
    expect(storage.log.readBatches(s0.id, 0, 10)[0]!.firstSeq, "the trimmed batch is gone").toBe(1);
  });
});
