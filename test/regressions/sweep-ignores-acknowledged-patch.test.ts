/**
 * Bug: the background sweep acted on the stream config it had listed at the start of its pass,
 * so a PATCH acknowledged meanwhile was ignored and data the user had chosen to keep was
 * deleted. In a trial of lite nodes on PostgreSQL (the sweeping node behind a 2 ms proxy,
 * SVC_LITE_SWEEP_MS=100, PATCHes through another node):
 * - `delete_on_empty` turned off 0.3-1.6 s after creating an empty stream with
 *   `min_age_secs: 1`, answered 200: the stream was deleted anyway in 7/30, 18/28, 13/28 rounds
 *   (80 other streams in the basin); the row showed the new config and `deleted = true`;
 * - retention extended to infinite before a record expired (`age: 3`), answered 200: the record
 *   was deleted anyway, 9 of 88.
 * The stream delete was conditional on the tail only, the removal of expired batches on nothing.
 *
 * Here the race is made certain, on every storage: the sweep's listing of the basin's streams
 * is held until a PATCH of the stream has been acknowledged, so the sweep judges the old config
 * and acts after the new one is stored. Expected: what the acknowledged config keeps is kept
 * (the stream; the record), on lmdb, in memory and on PostgreSQL. The multi-node repro of the
 * trial is in pg-sweep-ignores-acknowledged-patch.test.ts. On lmdb and in memory the store runs
 * on a clock the test moves past the ages; PostgreSQL's clock is the database's, so there it waits.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseLiteArgs } from "../../src/lite/options.js";
import { LmdbBackend } from "../../src/lite/storage/lmdb/backend.js";
import { MemoryBackend } from "../../src/lite/storage/memory.js";
import { PgBackend } from "../../src/lite/storage/pg/backend.js";
import type { Backend } from "../../src/lite/storage/seams.js";
import type { PartialStreamConfig } from "../../src/lite/storage/types.js";
import { createBasin } from "../../src/lite/store/basins.js";
import { Janitor } from "../../src/lite/store/janitor.js";
import { Store } from "../../src/lite/store/store.js";
import { createStream, reconfigureStreamOp } from "../../src/lite/store/streams.js";
import { freshDatabase, PG_PASSWORD } from "../helpers/postgres.js";

const BASIN = "sweep-patch-basin";
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const backends: [string, () => Promise<Backend>][] = [
  ["memory", async () => new MemoryBackend()],
  [
    "lmdb",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "svc-sweep-patch-"));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      return new LmdbBackend(dir);
    },
  ],
  [
    "postgres",
    async () => {
      const db = await freshDatabase();
      cleanups.push(db.drop);
      const opts = parseLiteArgs(["--storage", db.url], {
        PGPASSWORD: PG_PASSWORD,
        SVC_LITE_PG_POLL_MS: "60000",
        SVC_LITE_PG_CACHE_MS: "60000",
      });
      return PgBackend.open(opts.postgres!, () => {}, opts.pgTimings);
    },
  ],
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A store on `backend` whose next listing of the basin's streams returns what was stored before
 * `meanwhile` ran: the sweep judges that, while `meanwhile` (a PATCH) is acknowledged first.
 */
async function storeWithHeldListing(
  backend: Backend,
): Promise<{ store: Store; hold: (meanwhile: () => Promise<void>) => void; pass: (ms: number) => Promise<void> }> {
  let now = Date.now();
  const store = new Store(
    backend,
    () => {},
    () => now,
  );
  const pass = async (ms: number): Promise<void> => {
    if (backend.kind === "shared") await sleep(ms);
    else now += ms;
  };
  cleanups.push(() => backend.close());
  await createBasin(
    store,
    BASIN,
    { create_stream_on_append: false, create_stream_on_read: false, default_stream_config: {} } as never,
    undefined,
  );
  const catalog = backend.catalog as unknown as Record<string, (...a: unknown[]) => unknown>;
  const list = catalog.listStreams!.bind(backend.catalog);
  let held: (() => Promise<void>) | undefined;
  catalog.listStreams = async (...args: unknown[]) => {
    const listed = await list(...args);
    const meanwhile = held;
    held = undefined;
    if (meanwhile) await meanwhile();
    return listed;
  };
  return { store, hold: (meanwhile) => void (held = meanwhile), pass };
}

async function streamWith(store: Store, name: string, config: PartialStreamConfig): Promise<void> {
  await createStream(store, BASIN, name, config, undefined);
}

describe.each(backends)("the sweep obeys a PATCH acknowledged while it runs (%s)", (_name, open) => {
  it("keeps an empty stream whose delete-on-empty was turned off", async () => {
    const { store, hold, pass } = await storeWithHeldListing(await open());
    await streamWith(store, "empty", { delete_on_empty: { min_age_secs: 1 } });
    await pass(1_100); // empty for longer than min_age: the listed config says delete it
    let patched = false;
    hold(async () => {
      const meta = await reconfigureStreamOp(store, BASIN, "empty", { delete_on_empty: { min_age_secs: 0 } });
      patched = meta.config.delete_on_empty.min_age_secs === 0;
    });
    const janitor = new Janitor(store, 3_600_000, () => {}, 0);
    try {
      await janitor.trigger();
      await janitor.trigger(); // a later pass sees the new config
    } finally {
      await janitor.stop();
    }
    expect(patched, "the PATCH was acknowledged before the sweep acted").toBe(true);
    const stored = await store.catalog.getStream(BASIN, "empty");
    expect(stored && { deletedAt: stored.deletedAt }, "the stream the acknowledged config keeps").toEqual({
      deletedAt: null,
    });
    expect(stored?.config.delete_on_empty.min_age_secs).toBe(0);
  });

  it("keeps a record whose retention was made infinite before the sweep removed it", async () => {
    const { store, hold, pass } = await storeWithHeldListing(await open());
    await streamWith(store, "aging", { retention_policy: { age: 1 } });
    const s = await store.stream(BASIN, "aging", "none");
    await s.append({ records: [{ headers: [], body: new TextEncoder().encode("keep me") }] });
    await pass(1_100); // older than the listed retention
    hold(async () => {
      await reconfigureStreamOp(store, BASIN, "aging", { retention_policy: { infinite: {} } });
    });
    const janitor = new Janitor(store, 3_600_000, () => {}, 0);
    try {
      await janitor.trigger();
      await janitor.trigger();
    } finally {
      await janitor.stop();
    }
    const batches = await store.log.readBatches(s.id, 0, 10);
    expect(
      batches.flatMap((b) => b.records.map((r) => new TextDecoder().decode(r.body))),
      "the record the acknowledged retention keeps",
    ).toEqual(["keep me"]);
  });
});
