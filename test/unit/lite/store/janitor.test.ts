/**
 * The background sweep (src/lite/store/janitor.ts, protocol.md §7.7, §10.4, Appendix B) on the
 * in-memory backend, the clock faked (only Date: the sweep's own turns run as usual): trimmed
 * batches removed whatever the config; expired ones only while the stream is at the revision
 * the sweep judged; a stream empty long enough deleted unless its config changed; streams and
 * basins being deleted removed once their grace is over, and swept again soon after it ends.
 * The sweeps a store asks for (a trim, a delete) are checked on their own; elsewhere the test
 * runs each sweep itself. Leadership on PostgreSQL is covered by the pg-sweep-* regressions.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryBackend } from "../../../../src/lite/storage/memory.js";
import type { PartialStreamConfig, StreamMeta } from "../../../../src/lite/storage/types.js";
import { createBasin, deleteBasin } from "../../../../src/lite/store/basins.js";
import { Janitor } from "../../../../src/lite/store/janitor.js";
import { Store } from "../../../../src/lite/store/store.js";
import { createStream, deleteStream, reconfigureStreamOp } from "../../../../src/lite/store/streams.js";
import { trimRecord } from "../../../../src/rules/commands.js";

const T0 = Date.parse("2030-01-01T00:00:00Z");
const PERIOD = 3_600_000;
const janitors: Janitor[] = [];

afterEach(async () => {
  for (const j of janitors.splice(0)) await j.stop();
  vi.useRealTimers();
});

/**
 * A store on memory with basin "b", a janitor (grace `graceMs`, period `periodMs`: a trim is
 * carried out a period after a sweep first saw it) that sweeps when the test says so, the
 * clock at T0.
 */
async function setup(graceMs = 1000, fakeClock = true, periodMs = PERIOD) {
  if (fakeClock) {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
  }
  const backend = new MemoryBackend();
  const store = new Store(backend);
  await createBasin(
    store,
    "b",
    { create_stream_on_append: false, create_stream_on_read: false, default_stream_config: null },
    undefined,
  );
  const logged: string[] = [];
  const janitor = new Janitor(store, periodMs, (m) => logged.push(m), graceMs);
  janitors.push(janitor);
  const asked = store.onWork;
  store.onWork = () => {};
  /** One whole sweep begun after this call (a sweep already running counts for nothing). */
  const sweep = async () => {
    await janitor.trigger();
    await janitor.trigger();
  };
  const streamOf = async (name: string, config: PartialStreamConfig = {}) => {
    await createStream(store, "b", name, { retention_policy: { infinite: {} }, ...config }, undefined);
    return store.stream("b", name, "none");
  };
  const batches = (id: number) => (backend.log.batches.get(id) ?? []).map((b) => b.firstSeq);
  const stored = (name: string) => backend.catalog.getStream("b", name) as StreamMeta | undefined;
  return {
    backend,
    store,
    janitor,
    logged,
    sweep,
    streamOf,
    batches,
    stored,
    sweepsWhenAsked: () => (store.onWork = asked),
  };
}

const records = (n: number) => ({
  records: Array.from({ length: n }, () => ({ headers: [], body: new Uint8Array([1]) })),
});
const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

/**
 * Until the returned function is called, listings of the basin's streams show them as they are
 * now: the sweep judges that, whatever is stored by the time it acts.
 */
function listedAsNow(backend: MemoryBackend): () => void {
  const listed = structuredClone(backend.catalog.listStreams("b", "", "", 1000) as StreamMeta[]);
  const catalog = backend.catalog as { listStreams: (...a: never[]) => unknown };
  const list = catalog.listStreams;
  catalog.listStreams = () => structuredClone(listed);
  return () => {
    catalog.listStreams = list;
  };
}

async function poll(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the sweep", () => {
  it("carries a trim out a period after it first saw it, whatever the stream's revision", async () => {
    const { backend, store, sweep, streamOf, batches } = await setup();
    const s = await streamOf("trimmed");
    for (let i = 0; i < 3; i++) await s.append(records(3));
    await s.append({ records: [trimRecord(4)] });
    listedAsNow(backend);
    await reconfigureStreamOp(store, "b", "trimmed", { timestamping: { mode: "arrival" } });
    await sweep();
    later(PERIOD - 1);
    await sweep();
    expect([batches(s.id), s.removedBelow], "not due yet: every record still read").toEqual([[0, 3, 6, 9], 0]);
    later(1);
    await sweep();
    expect(batches(s.id), "3..6 holds records at and after 4").toEqual([3, 6, 9]);
    expect([s.removedBelow, backend.log.removedBelow(s.id)], "the removal mark, stored").toEqual([4, 4]);
  });

  it("removes expired batches, a prefix of the stream, only while it is at the revision judged", async () => {
    const { backend, store, sweep, streamOf, batches } = await setup();
    const s = await streamOf("aging", { retention_policy: { age: 10 } });
    await s.append(records(2));
    await s.append(records(2));
    later(8_000);
    await s.append(records(2));
    later(5_000); // the first two are 13 s old, the last 5 s
    const judgedNow = listedAsNow(backend);
    await reconfigureStreamOp(store, "b", "aging", { timestamping: { mode: "arrival" } });
    await sweep();
    expect(batches(s.id), "judged at revision 0, stored at 1: nothing expired removed").toEqual([0, 2, 4]);
    judgedNow();
    await sweep();
    expect(batches(s.id)).toEqual([4]);
    later(5_000);
    await sweep();
    expect(batches(s.id)).toEqual([]);
    expect(s.known.nextSeq, "the tail stays").toBe(6);
  });

  it("deletes a stream empty for min_age_secs since its last append, not before", async () => {
    const { sweep, streamOf, stored, logged } = await setup();
    const empty = await streamOf("empty", { delete_on_empty: { min_age_secs: 60 } });
    const full = await streamOf("full", { delete_on_empty: { min_age_secs: 60 } });
    await full.append(records(1));
    const trimmed = await streamOf("trimmed", { delete_on_empty: { min_age_secs: 60 } });
    later(30_000);
    await trimmed.append({ records: [trimRecord(1)] }); // empties it, and is its last append
    await sweep();
    expect(stored("empty")?.deletedAt).toBeNull();
    later(31_000);
    await sweep();
    expect(stored("empty")?.deletedAt, "61 s after its creation").not.toBeNull();
    expect(empty.deleting, "the loaded stream takes no more appends").toBe(true);
    expect(stored("full")?.deletedAt, "not empty").toBeNull();
    expect(stored("trimmed")?.deletedAt, "empty, but appended 31 s ago").toBeNull();
    later(PERIOD);
    await sweep();
    expect(stored("trimmed")?.deletedAt, "its trim carried out, its last append old enough").not.toBeNull();
    expect(logged.filter((l) => l.startsWith("delete-on-empty")).length).toBe(2);
  });

  it("deletes a stream whose records all expired, once its last append is old enough", async () => {
    const { sweep, streamOf, stored, batches } = await setup();
    const s = await streamOf("expiring", { retention_policy: { age: 10 }, delete_on_empty: { min_age_secs: 60 } });
    await s.append(records(2));
    later(30_000);
    await sweep();
    expect([batches(s.id), stored("expiring")?.deletedAt]).toEqual([[], null]);
    later(31_000);
    await sweep();
    expect(stored("expiring")?.deletedAt).not.toBeNull();
  });

  it("keeps an empty stream whose delete-on-empty changed since the sweep judged it", async () => {
    const { backend, store, sweep, streamOf, stored } = await setup();
    await streamOf("kept", { delete_on_empty: { min_age_secs: 60 } });
    await createStream(store, "b", "unloaded", { delete_on_empty: { min_age_secs: 60 } }, undefined);
    later(61_000);
    listedAsNow(backend);
    for (const name of ["kept", "unloaded"])
      await reconfigureStreamOp(store, "b", name, { delete_on_empty: { min_age_secs: 3600 } });
    await sweep();
    expect([stored("kept")?.deletedAt, stored("unloaded")?.deletedAt]).toEqual([null, null]);
  });

  it("removes a deleted stream, its records and its name once the grace is over", async () => {
    const { backend, store, sweep, streamOf, stored, batches } = await setup(1000);
    const s = await streamOf("gone");
    await s.append(records(3));
    await deleteStream(store, "b", "gone");
    later(500);
    await sweep();
    expect(stored("gone")?.deletedAt, "still being deleted during the grace").not.toBeNull();
    expect(batches(s.id)).toEqual([0]);
    later(600);
    await sweep();
    expect(stored("gone")).toBeUndefined();
    expect(backend.log.batches.get(s.id) ?? [], "its records").toEqual([]);
    expect(store.loaded("b", "gone"), "forgotten by the store").toBeUndefined();
    await createStream(store, "b", "gone", {}, undefined);
    expect(stored("gone")?.id, "the name is free for another stream").not.toBe(s.id);
  });

  it("removes a deleted basin with its streams once the grace is over", async () => {
    const { backend, store, sweep, streamOf, batches } = await setup(1000);
    const s = await streamOf("inside");
    await s.append(records(1));
    await deleteBasin(store, "b");
    later(500);
    await sweep();
    expect(backend.catalog.getBasin("b")).toMatchObject({ deletedAt: expect.any(String) });
    expect(batches(s.id)).toEqual([0]);
    later(600);
    await sweep();
    expect(backend.catalog.getBasin("b")).toBeUndefined();
    expect(backend.catalog.getStream("b", "inside")).toBeUndefined();
    expect(batches(s.id)).toEqual([]);
  });

  it("sweeps when the store asks (a trim becomes due), and soon after a deletion's grace ends", async () => {
    const { store, streamOf, stored, batches, sweepsWhenAsked } = await setup(300, false, 500);
    sweepsWhenAsked();
    const s = await streamOf("asked");
    await s.append(records(2));
    const trimmedAt = Date.now();
    await s.append({ records: [trimRecord(2)] });
    expect(batches(s.id), "not at once").toEqual([0, 2]);
    await poll("the trimmed batch removed", () => batches(s.id)[0] === 2);
    expect(Date.now() - trimmedAt, "a period after the trim").toBeGreaterThanOrEqual(500);
    await deleteStream(store, "b", "asked");
    await poll("the deleted stream removed after its grace", () => stored("asked") === undefined);
  });

  it("does nothing once stopped", async () => {
    const { janitor, streamOf, batches } = await setup();
    const s = await streamOf("after-stop");
    await s.append(records(1));
    await s.append({ records: [trimRecord(1)] });
    await janitor.stop();
    await janitor.trigger();
    expect(batches(s.id)).toEqual([0, 1]);
  });
});
