/**
 * Bug: a node on PostgreSQL did not sweep after a trim made through it, though every node
 * should (docs/multi-node.md, "The sweep"; the janitor's own comment): the trim point the node
 * learnt from its own group's answer was taken without telling the store that background work
 * was pending (only a trim point read from the database, or one in an answer where another
 * node's appends had landed first, did), so the trimmed records stayed stored until the
 * lease holder's next periodic sweep, and the node's batch cache kept the trimmed batches.
 *
 * Reproduced on a scripted database (test/helpers/scripted-shared-log.ts) with a node that
 * does not hold the sweep's lease: three batches appended through it, then a trim past the
 * first two. Expected: the node sweeps and removes the two batches below the trim point, as a
 * local stream does: once the trim is due, a sweep period after the node saw it (trims are
 * carried out a period late since trim-hides-records-from-followers-at-once; the period here
 * is 200 ms, and no periodic sweep runs on this node).
 */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryBackend } from "../../src/lite/storage/memory.js";
import type { MetricsStore, SharedBackend, SharedCatalog } from "../../src/lite/storage/seams.js";
import { createBasin } from "../../src/lite/store/basins.js";
import { Janitor } from "../../src/lite/store/janitor.js";
import { Store } from "../../src/lite/store/store.js";
import { createStream } from "../../src/lite/store/streams.js";
import { trimRecord } from "../../src/rules/commands.js";
import { ScriptedSharedLog, storedState } from "../helpers/scripted-shared-log.js";

const janitors: Janitor[] = [];
afterEach(async () => {
  for (const j of janitors.splice(0)) await j.stop();
});

async function poll(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return done();
}

describe("a trim made through a node on PostgreSQL", () => {
  it("is swept at once by that node", async () => {
    const memory = new MemoryBackend();
    const log = new ScriptedSharedLog([]);
    const backend: SharedBackend = {
      kind: "shared",
      durable: true,
      log,
      // The memory backend answers at once; code for a shared backend awaits every answer, so values serve.
      catalog: memory.catalog as unknown as SharedCatalog,
      metrics: memory.metrics as unknown as MetricsStore<"shared">,
      cluster: { watch: () => {}, announce: () => {}, leadsSweep: () => false },
      clock: { now: () => Date.now(), unsure: () => undefined, offsetMs: () => 0, uncertaintyMs: () => 0 },
      close: async () => {},
    };
    const store = new Store(backend);
    await createBasin(
      store,
      "b",
      { create_stream_on_append: false, create_stream_on_read: false, default_stream_config: null },
      undefined,
    );
    const { meta } = await createStream(store, "b", "s", {}, undefined);
    log.streams.set(meta.id, { state: storedState(), rows: [] });
    // Its periodic sweep is not started: this node is not the lease holder, whose sweep runs every period.
    const janitor = new Janitor(store, 200, () => {});
    janitors.push(janitor);
    const s = await store.stream("b", "s", "none");
    for (let i = 0; i < 3; i++) await s.append({ records: [{ headers: [], body: new Uint8Array([i]) }] });
    await s.append({ records: [trimRecord(2)] });
    const stored = () => log.streams.get(meta.id)!.rows.map((r) => r.first);
    expect(log.state(meta.id).trimPoint).toBe(2);
    expect(stored(), "not at once: the trimmed records are read a while yet").toEqual([0, 1, 2, 3]);
    expect(
      await poll(() => stored()[0] === 2, 3_000),
      `batches stored 3 s after the trim to 2: ${stored().join(", ")}`,
    ).toBe(true);
  });
});
