/**
 * Bug: a catch-up read decoded every stored record, though a read session sends stored records
 * as the bytes they are kept in. The feed made its batch event with `{ type: "batch", ...batch }`,
 * and a spread reads every property: for a batch of stored wire bytes (catch-up.ts), reading
 * `records` decodes them all. On lmdb, a session's catch-up of 64 MiB of 1 KiB records ran at
 * 0.80x the rate of the head before the read pipeline (573 against 715 MiB/s, paired, six
 * runs each), with the collector's share of the CPU 2.5 times as large.
 *
 * Here the stored batches are what lmdb keeps (batch-codec.ts, wire bytes and an index): the
 * event of a catch-up carries those bytes, and its records are decoded only when asked for.
 */
import { describe, expect, it } from "vitest";
import { decodeBatch, encodeBatch } from "../../src/lite/storage/batch-codec.js";
import { MemoryBackend } from "../../src/lite/storage/memory.js";
import { initialState } from "../../src/lite/store/live-stream.js";
import { LocalStream } from "../../src/lite/store/local-stream.js";
import { ReadFeed } from "../../src/lite/store/read-feed.js";
import { planRead } from "../../src/lite/store/read-plan.js";
import { resolveStreamConfig } from "../../src/lite/store/stream-config.js";

const enc = new TextEncoder();

describe("a catch-up read of stored wire bytes", () => {
  it("hands them on without decoding its records", async () => {
    const backend = new MemoryBackend();
    backend.log.states.set(1, initialState(0));
    const config = resolveStreamConfig({ retention_policy: { infinite: {} } }, null);
    const meta = { basin: "b", name: "s", id: 1, config, createdAt: new Date(0).toISOString(), deletedAt: null };
    const s = new LocalStream({ ...meta, requestKey: null }, initialState(0), backend.log);
    for (let i = 0; i < 3; i++)
      await s.append({
        records: Array.from({ length: 4 }, (_, j) => ({ headers: [], body: enc.encode(`r${i}.${j}`) })),
      });
    // As lmdb returns them: each batch decoded from its stored value.
    const readBatches = backend.log.readBatches.bind(backend.log);
    backend.log.readBatches = (id, from, max) =>
      readBatches(id, from, max).map((b) => decodeBatch(b.firstSeq, encodeBatch(b)));

    const feed = await ReadFeed.open(s, planRead({ start: { seqNum: 0 } }, false));
    const ev = await feed.next();
    feed.close();
    expect(ev?.type).toBe("batch");
    if (ev?.type !== "batch") return;
    expect(ev.encoded?.length).toBeGreaterThan(0);
    // Still a getter: nothing has read the records yet.
    expect(typeof Object.getOwnPropertyDescriptor(ev, "records")?.get).toBe("function");
    expect(ev.records.map((r) => new TextDecoder().decode(r.body))).toEqual(
      [0, 1, 2].flatMap((i) => [0, 1, 2, 3].map((j) => `r${i}.${j}`)),
    );
  });
});
