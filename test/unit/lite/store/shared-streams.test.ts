/**
 * Live streams on a shared backend (src/lite/store/shared-streams.ts) over a scripted sequencer
 * (test/helpers/scripted-shared-log.ts) and a scripted catalog and cluster: stored states read
 * through one tail reader (at most two queries at a time; concurrent reads of any streams
 * share one; a read is answered by a query begun after it was asked), hints that make exactly
 * the streams they name read their state again, and a loaded stream checked against the catalog.
 */
import { describe, expect, it } from "vitest";
import type { ClusterHint, MetricsStore, SharedBackend, SharedCatalog } from "../../../../src/lite/storage/seams.js";
import type { StreamMeta } from "../../../../src/lite/storage/types.js";
import type { LiveStream } from "../../../../src/lite/store/live-stream.js";
import type { SharedStream } from "../../../../src/lite/store/shared-stream.js";
import { SharedStreams } from "../../../../src/lite/store/shared-streams.js";
import { ScriptedSharedLog, streamMeta } from "../../../helpers/scripted-shared-log.js";

async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** SharedStreams over a scripted log of streams `ids`, a catalog of `metas` and a cluster whose hints the test sends. */
async function setup(ids = [1, 2, 3], basinOf = (_id: number) => "b") {
  const log = new ScriptedSharedLog(ids);
  const metas = new Map<number, StreamMeta>(ids.map((id) => [id, { ...streamMeta(id), basin: basinOf(id) }]));
  const catalogReads: string[] = [];
  let hint!: (h: ClusterHint) => void;
  const catalog = {
    getStream: async (basin: string, name: string) => {
      catalogReads.push(name);
      return [...metas.values()].find((m) => m.basin === basin && m.name === name);
    },
  };
  const backend: SharedBackend = {
    kind: "shared",
    durable: true,
    log,
    catalog: catalog as unknown as SharedCatalog,
    metrics: {} as MetricsStore<"shared">,
    cluster: { watch: (h) => void (hint = h), announce: () => {}, leadsSweep: () => true },
    clock: { now: () => Date.now(), unsure: () => undefined, offsetMs: () => 0, uncertaintyMs: () => 0 },
    close: async () => {},
  };
  const loaded: LiveStream[] = [];
  const logged: string[] = [];
  const kind = new SharedStreams(backend, {
    onTrim: () => {},
    now: Date.now,
    loaded: () => loaded,
    forget: (s) => void loaded.splice(loaded.indexOf(s), 1),
    log: (m) => void logged.push(m),
  });
  for (const id of ids) loaded.push(await kind.load(metas.get(id)!));
  log.stateReads.length = 0;
  const stream = (id: number) => loaded.find((s) => s.id === id) as SharedStream;
  return { log, metas, catalogReads, kind, loaded, logged, stream, hint: (h: ClusterHint) => hint(h) };
}

describe("shared streams' tail reader", () => {
  it("loads a stream with its stored state; a stream without one is 404", async () => {
    const { kind, log } = await setup([1]);
    log.appendElsewhere(4, 9);
    const s = await kind.load(streamMeta(1));
    expect(s.known).toMatchObject({ nextSeq: 4, lastTimestamp: 9 });
    await expect(kind.load(streamMeta(7))).rejects.toMatchObject({ code: "stream_not_found" });
  });

  it("runs at most two queries at a time; the reads asked meanwhile share the next one", async () => {
    const { log, stream } = await setup([1, 2, 3, 4]);
    log.holdStates = true;
    const done: string[] = [];
    const ask = (id: number, name: string) =>
      stream(id)
        .tailNow()
        .then(() => done.push(name));
    const a = ask(1, "1a");
    const b = ask(2, "2b");
    const c = ask(3, "3c");
    const d = ask(4, "4d");
    const e = ask(3, "3e");
    expect(log.stateReads, "two in flight, the rest waiting").toEqual([[1], [2]]);
    await log.answerStates();
    expect(done).toEqual(["1a"]);
    expect(log.stateReads[2]!.sort(), "one query for every stream asked meanwhile, each once").toEqual([3, 4]);
    expect(log.statesWaiting).toBe(2);
    await log.answerStates();
    await log.answerStates();
    await Promise.all([a, b, c, d, e]);
    expect(done.sort()).toEqual(["1a", "2b", "3c", "3e", "4d"]);
    expect(log.stateReads.length).toBe(3);
  });

  it("answers a read with a query begun after it was asked, never one already running", async () => {
    const { log, stream } = await setup([1]);
    log.holdStates = true;
    const first = stream(1).tailNow();
    log.appendElsewhere(2); // acknowledged through another node while the first query runs
    const second = stream(1).tailNow();
    expect(log.stateReads.length, "a query of its own, though one for the same stream runs").toBe(2);
    const third = stream(1).tailNow();
    const fourth = stream(1).tailNow();
    expect(log.stateReads.length, "two running: the reads asked now wait").toBe(2);
    await log.answerStates();
    expect(log.stateReads.length, "the third and fourth share the next query").toBe(3);
    await log.answerStates();
    await log.answerStates();
    expect(log.stateReads.length).toBe(3);
    expect((await Promise.all([first, second, third, fourth])).map((t) => t.seqNum)).toEqual([2, 2, 2, 2]);
  });

  it("fails every read of a failed query; the next query goes on", async () => {
    const { log, stream } = await setup([1, 2]);
    log.holdStates = true;
    const a = stream(1)
      .tailNow()
      .catch((e: Error) => e);
    const b = stream(2).tailNow();
    const c = stream(2).tailNow();
    await log.answerStates(new Error("the database went away"));
    expect(await a).toMatchObject({ message: "the database went away" });
    await log.answerStates();
    expect((await b).seqNum).toBe(0);
    await log.answerStates();
    expect((await c).seqNum).toBe(0);
  });
});

describe("hints to shared streams", () => {
  it("make exactly the loaded streams a tails hint names read their stored state, and take it", async () => {
    const { log, stream, hint } = await setup();
    for (const id of [1, 2, 3]) log.appendElsewhere(2, 0, id);
    hint({ kind: "tails", ids: [2, 9] });
    await turns();
    expect(log.stateReads).toEqual([[2]]);
    expect([1, 2, 3].map((id) => stream(id).known.nextSeq)).toEqual([0, 2, 0]);
  });

  it("make every loaded stream read its state again when the hint names none (a poll)", async () => {
    const { log, stream, hint } = await setup();
    for (const id of [1, 2, 3]) log.appendElsewhere(1, 0, id);
    hint({ kind: "tails" });
    await turns();
    expect(log.stateReads.flat().sort()).toEqual([1, 2, 3]);
    expect([1, 2, 3].map((id) => stream(id).known.nextSeq)).toEqual([1, 1, 1]);
  });

  it("seal a stream being deleted, and forget one gone", async () => {
    const { log, stream, loaded, hint } = await setup();
    const [one, two] = [stream(1), stream(2)];
    log.state(1).live = false;
    log.streams.delete(2);
    hint({ kind: "tails", ids: [1, 2] });
    await turns();
    expect([one.deleting, two.deleting]).toEqual([true, true]);
    expect(loaded.map((s) => s.id)).toEqual([1, 3]);
  });

  it("make a stream's metadata hint check that stream against the catalog, and forget it when gone", async () => {
    const { catalogReads, metas, loaded, stream, hint } = await setup();
    metas.set(2, {
      ...metas.get(2)!,
      rev: 1,
      config: { ...metas.get(2)!.config, delete_on_empty: { min_age_secs: 9 } },
    });
    hint({ kind: "meta", streamId: 2 });
    await turns();
    expect(catalogReads).toEqual(["s2"]);
    expect(stream(2).meta.config.delete_on_empty.min_age_secs, "the newer metadata").toBe(9);
    metas.delete(3);
    hint({ kind: "meta", streamId: 3 });
    await turns();
    expect(loaded.map((s) => s.id)).toEqual([1, 2]);
  });

  it("concern no stream for a basin's own metadata, every stream of the basin for a basin deleted", async () => {
    const { catalogReads, hint } = await setup([1, 2, 3], (id) => (id === 3 ? "c" : "b"));
    hint({ kind: "meta", basinId: 5, basin: "b" });
    await turns();
    expect(catalogReads).toEqual([]);
    hint({ kind: "meta", basinId: 5, streams: true, basin: "b" });
    await turns();
    expect(catalogReads.sort()).toEqual(["s1", "s2"]);
    catalogReads.length = 0;
    hint({ kind: "meta", basinId: 5, streams: true });
    await turns();
    expect(catalogReads.sort(), "the basin's name unknown here: every stream").toEqual(["s1", "s2", "s3"]);
    catalogReads.length = 0;
    hint({ kind: "tokens" });
    await turns();
    expect(catalogReads).toEqual([]);
  });

  it("log a check that failed, and keep the stream", async () => {
    const { kind, loaded, logged, hint } = await setup([1]);
    (kind as unknown as { backend: { catalog: { getStream: () => Promise<never> } } }).backend.catalog.getStream =
      async () => {
        throw new Error("catalog unreachable");
      };
    hint({ kind: "meta", streamId: 1 });
    await turns();
    expect(logged).toEqual(['could not re-read "b"/"s1": catalog unreachable']);
    expect(loaded.length).toBe(1);
  });
});

describe("a shared stream checked against the catalog", () => {
  it("takes newer metadata, keeps what it has over older, seals a stream being deleted, and is gone for another id", async () => {
    const { kind, metas, stream } = await setup([1]);
    const s = stream(1);
    s.meta = { ...s.meta, rev: 3 };
    metas.set(1, { ...metas.get(1)!, rev: 2 });
    expect(await kind.check(s)).toBe("ok");
    expect(s.meta.rev, "older metadata (a cache behind this node's own change)").toBe(3);
    metas.set(1, { ...metas.get(1)!, rev: 4 });
    await kind.check(s);
    expect(s.meta.rev).toBe(4);
    metas.set(1, { ...metas.get(1)!, deletedAt: new Date().toISOString() });
    expect(await kind.check(s)).toBe("ok");
    expect(s.deleting).toBe(true);
    const t = (await setup([1])).stream(1);
    metas.set(1, { ...metas.get(1)!, id: 99, deletedAt: null });
    expect(await kind.check(t)).toBe("gone");
    expect(t.deleting).toBe(true);
  });
});
