/**
 * `batchHeads` (the background sweep's view of stored batches) says what `readBatches`
 * would return, without the records: the same batches, from the one holding `fromSeq`, on the
 * in-memory and lmdb storages (PostgreSQL: the lite suites' retention and delete-on-empty tests
 * run on it too).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LmdbBackend } from "../../../src/lite/storage/lmdb/backend.js";
import { MemoryBackend } from "../../../src/lite/storage/memory.js";
import type { LocalBackend } from "../../../src/lite/storage/seams.js";
import { createBasin } from "../../../src/lite/store/basins.js";
import { Store } from "../../../src/lite/store/store.js";
import { createStream } from "../../../src/lite/store/streams.js";

const SIZES = [3, 1, 5, 2, 7];

async function check(backend: LocalBackend): Promise<void> {
  const store = new Store(backend);
  const storage = backend.log;
  await createBasin(
    store,
    "heads-basin",
    { create_stream_on_append: false, create_stream_on_read: false, default_stream_config: {} } as never,
    undefined,
  );
  await createStream(store, "heads-basin", "s", {}, undefined);
  const s = await store.stream("heads-basin", "s", "none");
  for (const n of SIZES)
    await s.append({
      records: Array.from({ length: n }, (_, i) => ({ headers: [], body: new TextEncoder().encode(`r${i}`) })),
    });
  const total = SIZES.reduce((a, b) => a + b, 0);
  for (let from = 0; from <= total + 1; from++) {
    for (const max of [1, 2, 64]) {
      const want = storage
        .readBatches(s.id, from, max)
        .map((b) => ({ firstSeq: b.firstSeq, count: b.records.length, arrival: b.arrival }));
      expect(await storage.batchHeads(s.id, from, max), `from ${from}, max ${max}`).toEqual(want);
    }
  }
  expect(await storage.batchHeads(s.id, total, 5)).toEqual([]);
  expect((await storage.batchHeads(s.id, 4, 1))[0]).toMatchObject({ firstSeq: 4, count: 5 });
  expect((await storage.batchHeads(s.id, 6, 1))[0]).toMatchObject({ firstSeq: 4, count: 5 });
}

describe("batchHeads", () => {
  it("memory", async () => {
    await check(new MemoryBackend());
  });

  it("lmdb", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-heads-"));
    const storage = new LmdbBackend(dir);
    try {
      await check(storage);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
