/**
 * The metrics storage of a local backend (storage/local-metrics.ts, on memory and on lmdb):
 * counts and totals add up, stored bytes are a gauge that changes by deltas with its basin's
 * row following, every change sampled at its minute, a dropped stream leaves its basin, old
 * minutes are pruned. PostgreSQL's (storage/pg/metrics.ts) is held to the same answers by
 * test/e2e/lite-metrics-nodes.e2e.test.ts and the lite metrics suite run on it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LmdbBackend } from "../../../src/lite/storage/lmdb/backend.js";
import { MemoryBackend } from "../../../src/lite/storage/memory.js";
import type { MetricsStore } from "../../../src/lite/storage/seams.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function lmdbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-metrics-store-"));
  dirs.push(dir);
  return join(dir, "data.mdb");
}

const M = 60;
const none = { counts: [], totals: [], stored: [] };

async function contract(m: MetricsStore): Promise<void> {
  await m.add({
    ...none,
    counts: [
      { t: M, scope: "", name: "op:append", n: 2 },
      { t: M, scope: "basin-one", name: "append-ops", n: 2 },
    ],
    totals: [["appended-records", 5]],
  });
  await m.add({
    ...none,
    counts: [
      { t: M, scope: "", name: "op:append", n: 1 },
      { t: 2 * M, scope: "basin-two", name: "op:read", n: 4 },
    ],
    totals: [["appended-records", 1]],
  });
  expect(await m.counts(M, 2 * M)).toEqual(
    expect.arrayContaining([
      { t: M, scope: "", name: "op:append", n: 3 },
      { t: M, scope: "basin-one", name: "append-ops", n: 2 },
      { t: 2 * M, scope: "basin-two", name: "op:read", n: 4 },
    ]),
  );
  expect(await m.counts(M, 2 * M, "basin-one")).toEqual([{ t: M, scope: "basin-one", name: "append-ops", n: 2 }]);
  expect(await m.counts(2 * M, 3 * M, "")).toEqual([]);
  expect(await m.totals()).toEqual([["appended-records", 6]]);

  // Stored bytes: deltas per stream, the basin's row follows, each change sampled.
  await m.add({
    ...none,
    stored: [
      { t: M, basin: "basin-one", stream: "a", id: 1, n: 100 },
      { t: M, basin: "basin-one", stream: "b/c", id: 2, n: 50 },
    ],
  });
  await m.add({
    ...none,
    stored: [
      { t: 2 * M, basin: "basin-one", stream: "a", id: 1, n: -30 },
      { t: 2 * M, basin: "basin-two", stream: "a", id: 3, n: 7 },
    ],
  });
  expect([
    await m.stored("basin-one", "a"),
    await m.stored("basin-one", "b/c"),
    await m.stored("basin-one"),
    await m.stored("basin-two"),
    await m.stored(),
  ]).toEqual([70, 50, 120, 7, 127]);
  expect(await m.samples("basin-one", "a", 0, 3 * M)).toEqual([
    { t: M, bytes: 100 },
    { t: 2 * M, bytes: 70 },
  ]);
  expect(await m.samples("basin-one", "", 0, 3 * M)).toEqual([
    { t: M, bytes: 150 },
    { t: 2 * M, bytes: 120 },
  ]);
  expect(await m.samples("basin-one", "b/c", 2 * M, 3 * M)).toEqual([]);

  // A drop: the stream's bytes leave it and its basin, both sampled; dropping again changes nothing.
  await m.drop(3 * M, "basin-one", "a", 1);
  await m.drop(3 * M, "basin-one", "a", 1);
  expect([await m.stored("basin-one", "a"), await m.stored("basin-one"), await m.stored()]).toEqual([0, 50, 57]);
  expect(await m.samples("basin-one", "a", 3 * M, 3 * M)).toEqual([{ t: 3 * M, bytes: 0 }]);
  expect(await m.samples("basin-one", "", 3 * M, 3 * M)).toEqual([{ t: 3 * M, bytes: 50 }]);

  // Pruning drops counts and samples of minutes before the cut, nothing else.
  await m.add({ ...none, pruneBefore: 2 * M });
  expect(await m.counts(0, 3 * M)).toEqual([{ t: 2 * M, scope: "basin-two", name: "op:read", n: 4 }]);
  expect(await m.samples("basin-one", "", 0, 3 * M)).toEqual([
    { t: 2 * M, bytes: 120 },
    { t: 3 * M, bytes: 50 },
  ]);
  expect(await m.stored("basin-one", "b/c")).toBe(50);
  expect(await m.totals()).toEqual([["appended-records", 6]]);
}

describe("lite > metrics storage of a local backend", () => {
  it("in memory", async () => {
    await contract(new MemoryBackend().metrics);
  });

  it("in lmdb, kept across a reopen", async () => {
    const path = lmdbPath();
    const b = new LmdbBackend(path);
    await contract(b.metrics);
    await b.close();
    const again = new LmdbBackend(path);
    expect([await again.metrics.stored("basin-one"), await again.metrics.stored()]).toEqual([50, 57]);
    expect(await again.metrics.totals()).toEqual([["appended-records", 6]]);
    await again.close();
  });
});
