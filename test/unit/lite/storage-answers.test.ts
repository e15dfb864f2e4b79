/**
 * storage/answers.ts: a local backend's reads answer with values, a shared one's with promises,
 * and the types say so. The `@ts-expect-error` lines are checked by `npm run lint` (tsc over
 * test/): each fails the lint the day its line compiles, e.g. a local log whose reads return
 * promises, or a shared catalog taken where a local one is needed.
 */
import { describe, expect, it } from "vitest";
import { type EitherKind, mapAnswer, pending } from "../../../src/lite/storage/answers.js";
import { MemoryBackend } from "../../../src/lite/storage/memory.js";
import type { Catalog, LocalCatalog, LocalLog, SharedCatalog } from "../../../src/lite/storage/seams.js";
import type { StoredBatch } from "../../../src/lite/storage/types.js";
import type { LiveStream } from "../../../src/lite/store/live-stream.js";
import type { StoredReader } from "../../../src/lite/store/stored-reader.js";

/** Types only: never called. */
function typesSayTheKind(local: LocalCatalog, shared: SharedCatalog, either: Catalog, log: LocalLog): void {
  const id: number = local.newId();
  // @ts-expect-error a shared catalog's new id is a promise
  const sharedId: number = shared.newId();
  // @ts-expect-error code serving either kind gets a value or a promise
  const eitherId: number = either.newId();
  const anyKind: Catalog[] = [local, shared];
  // @ts-expect-error a shared catalog is not a local one
  const notLocal: LocalCatalog = shared;
  // @ts-expect-error nor is a catalog of either kind
  const notLocalEither: LocalCatalog = either;
  const batches: StoredBatch[] = log.readBatches(1, 0, 1);
  // @ts-expect-error a local log's reads answer at once: one that returns a promise is no LocalLog
  const asyncLog: LocalLog = { ...log, readBatches: async () => [] };
  const localReader = (s: LiveStream<"local">): StoredReader<"local"> => s.reader(-1);
  // @ts-expect-error a shared stream's reader answers with promises
  const sharedReader = (s: LiveStream<"shared">): StoredReader<"local"> => s.reader(-1);
  void [id, sharedId, eitherId, anyKind, notLocal, notLocalEither, batches, asyncLog, localReader, sharedReader];
}
void typesSayTheKind;

describe("storage answers", () => {
  it("a local backend answers at once: nothing is pending, and mapAnswer goes on in the same turn", () => {
    const memory = new MemoryBackend();
    const answer: EitherKind<unknown> = memory.catalog.getBasin("b");
    expect(pending(answer)).toBe(false);
    let ran = false;
    const mapped = mapAnswer(memory.log.readBatches(1, 0, 10), (b) => {
      ran = true;
      return b.length;
    });
    expect([ran, mapped]).toEqual([true, 0]);
  });

  it("a promise is pending, and mapAnswer goes on once it comes", async () => {
    const answer: EitherKind<number> = Promise.resolve(2);
    expect(pending(answer)).toBe(true);
    const mapped = mapAnswer(answer, (n) => n * 3);
    expect(pending(mapped)).toBe(true);
    expect(await mapped).toBe(6);
  });
});
