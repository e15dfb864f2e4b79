/**
 * Bug: on lmdb and in memory, the sweep's delete-on-empty sealed a loaded stream (no more
 * appends) before its conditional delete, and left it sealed when the delete was refused
 * because a record had been appended since the sweep looked. The stream stayed in the catalog,
 * not deleted, with its new record, yet every append to it answered 409
 * `stream_deletion_pending` until the server restarted.
 *
 * Reproduced here with the clock faked: a stream with `delete_on_empty.min_age_secs: 60`,
 * empty and loaded, 61 s old. The sweep judges it empty, then waits for the metadata lock,
 * which another change holds (as a create or PATCH does while its write is synced); meanwhile
 * an append is acknowledged; then the lock is released and the sweep acts. Expected: the
 * stream is not deleted and keeps taking appends (a later sweep judges it again: not empty).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { LmdbBackend } from "../../src/lite/storage/lmdb/backend.js";
import { MemoryBackend } from "../../src/lite/storage/memory.js";
import type { Backend } from "../../src/lite/storage/seams.js";
import { createBasin } from "../../src/lite/store/basins.js";
import { Janitor } from "../../src/lite/store/janitor.js";
import { Store } from "../../src/lite/store/store.js";
import { createStream } from "../../src/lite/store/streams.js";

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const backends: [string, () => Backend][] = [
  ["memory", () => new MemoryBackend()],
  [
    "lmdb",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "svc-empty-race-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return new LmdbBackend(dir);
    },
  ],
];

const record = () => ({ records: [{ headers: [], body: new TextEncoder().encode("appended meanwhile") }] });

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await new Promise((r) => setImmediate(r));
  if (!done()) throw new Error(`never happened: ${what}`);
}

describe.each(backends)("delete-on-empty and an append acknowledged meanwhile (%s)", (_name, open) => {
  it("leaves the stream taking appends", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const backend = open();
    cleanups.push(() => backend.close());
    const store = new Store(backend);
    await createBasin(
      store,
      "b",
      { create_stream_on_append: false, create_stream_on_read: false, default_stream_config: null },
      undefined,
    );
    await createStream(store, "b", "s", { delete_on_empty: { min_age_secs: 60 } }, undefined);
    const s = await store.stream("b", "s", "none");
    vi.setSystemTime(Date.now() + 61_000);

    const janitor = new Janitor(store, 3_600_000, () => {}, 0);
    store.onWork = () => {};
    let release!: () => void;
    // Another change of the stream holds its lock while the sweep comes to delete it.
    const otherChange = store.meta.stream("b", "s", () => new Promise<void>((r) => (release = r)));
    let sweepWaits = false;
    const locked = store.meta.stream.bind(store.meta);
    store.meta.stream = <T>(basin: string, name: string, fn: () => Promise<T> | T): Promise<T> => {
      sweepWaits = true;
      return locked(basin, name, fn);
    };
    const sweeping = janitor.trigger();
    await until("the sweep waits for the metadata lock", () => sweepWaits);
    const ack = await s.append(record());
    release();
    await otherChange;
    await sweeping;
    await janitor.stop();

    expect(ack.start.seqNum).toBe(0);
    expect(store.catalog.getStream("b", "s"), "the stream is not deleted").toMatchObject({ deletedAt: null });
    const again = await store.stream("b", "s", "append").then(
      (live) => live.append(record()),
      (e: Error) => e,
    );
    expect(again, "an append to the stream").toMatchObject({ start: { seqNum: 1 } });
  });
});
