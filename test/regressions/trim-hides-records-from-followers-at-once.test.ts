/**
 * Bug: a trim hid the records below its point at once, from catch-up reads and from live
 * followers alike. S2 documents trimming as eventually consistent (its own server removes
 * trimmed records in a background pass) and delivers every acknowledged record to a follower;
 * S2's resumable-stream library relies on both: each generation ends with one append of
 * `[trim(2^53-1), fence]`, and the live response and any replay read the generation back from
 * seq 1. Against lite:
 * - fence@0, three records @1-3, then `[trim(2^53-1), fence "end"]` @4-5: a read from seq 1
 *   answered only record 5 (unary, and through S2's SDK's session transport);
 * - a follower waiting at seq 1 (SSE or session), then one append `[data, trim(2^53-1), fence]`:
 *   the follower got only the fence (a live batch below the trim point it set was sent to
 *   storage, which filtered it).
 * Now a trim is recorded at once and carried out by the sweep one sweep period after it saw
 * the trim point (docs/protocol.md §7.7): until then every record is read, and every follower
 * gets each batch whole; after it, the records are gone and a read from 0 starts at the trim
 * point. Both on lmdb and on PostgreSQL, lite in process on a clock the test moves.
 */
import { AppendInput, AppendRecord, type S2Basin } from "@s2-dev/streamstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { StreamClient } from "../../src/client/stream.js";
import { fenceRecord, trimRecord } from "../../src/rules/commands.js";
import { eventually, type Lite, liteClient, startLite } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";
import { sdkClient } from "../helpers/s2-sdk.js";
import { scratchDir } from "../helpers/scratch.js";

const PERIOD_MS = 60_000;
const FOREVER = Number.MAX_SAFE_INTEGER; // 2^53-1, as the resumable-stream library trims

describe.each(["lmdb", "postgres"] as const)("a trim, on %s", (storage) => {
  let lite: Lite;
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let now = Date.now();
  let client: SvcClient;
  let sdk: S2Basin;
  const basin = `trim-later-${process.pid}`;

  /** lite in this process, on the same storage each time (the test restarts it). */
  let start: () => Promise<Lite>;

  beforeAll(async () => {
    db = storage === "postgres" ? await freshDatabase() : undefined;
    const where = db ? { postgres: db.url } : { dataDir: scratchDir("svc-trim-later-") };
    start = () =>
      startLite({ inProcess: true, clock: () => now, env: { SVC_LITE_SWEEP_MS: String(PERIOD_MS) }, ...where });
    lite = await start();
    const made = await liteClient(lite).call("POST", "/v1/basins", {
      json: { basin, config: { create_stream_on_append: true } },
    });
    expect(made.status).toBe(201);
    clients();
  }, 60_000);
  /** Clients of the lite running now. */
  const clients = (): void => {
    client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
    sdk = sdkClient(lite).basin(basin);
  };
  afterAll(async () => {
    await client?.close();
    await lite?.stop();
    await db?.drop();
  });

  /** The seq nums a unary read from `seq` answers. */
  const unary = async (stream: string, seq: number): Promise<number[]> => {
    const r = await liteClient(lite).call("GET", `/v1/streams/${stream}/records?seq_num=${seq}`, { basin });
    expect(r.status).toBe(200);
    return (r.json().records as { seq_num: number }[]).map((x) => x.seq_num);
  };

  /** The seq nums S2's SDK reads from `seq` over a session of `transport` (at most `count`). */
  const sdkSession = async (stream: string, transport: "s2s" | "fetch", seq: number, count: number) => {
    const s = sdk.stream(stream, { forceTransport: transport });
    const got: number[] = [];
    for await (const r of await s.readSession({ start: { from: { seqNum: seq } }, stop: { limits: { count } } }))
      got.push(r.seqNum);
    await s.close();
    return got;
  };

  it("is read back whole right after it, then gone a sweep period later (the resumable-stream pattern)", async () => {
    const sc = client.basin(basin).stream("gen");
    await sc.append({ records: [fenceRecord("gen-1")] });
    await sc.append({ records: ["a", "b", "c"].map((b) => ({ headers: [], body: new TextEncoder().encode(b) })) });
    const end = await sc.append({ records: [trimRecord(FOREVER), fenceRecord("end")] });
    expect([end.start.seqNum, end.end.seqNum]).toEqual([4, 6]);
    expect(await unary("gen", 1)).toEqual([1, 2, 3, 4, 5]);
    expect(await sdkSession("gen", "s2s", 1, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(await sdkSession("gen", "fetch", 1, 5)).toEqual([1, 2, 3, 4, 5]);
    await lite.sweep!(); // the sweep has seen the trim point, at `now` (the clock has not moved)
    expect(await unary("gen", 1)).toEqual([1, 2, 3, 4, 5]);
    // A sweep before the period is over leaves every record readable.
    now += PERIOD_MS - 1;
    await lite.sweep!();
    expect(await unary("gen", 0)).toEqual([0, 1, 2, 3, 4, 5]);
    // A period after the sweep first saw the trim point, the next sweep carries it out.
    now += 1;
    await lite.sweep!();
    expect(await unary("gen", 1)).toEqual([5]);
    expect(await unary("gen", 0), "the stream's first record is the trim point").toEqual([5]);
    expect(await sdkSession("gen", "s2s", 0, 1)).toEqual([5]);
    expect((await sc.checkTail()).seqNum).toBe(6);
    // The removal is durable: record 4 shares its stored batch with 5, and stays unread after a restart.
    await client.close();
    await lite.stop();
    const token = lite.token;
    lite = await start();
    // A node on PostgreSQL that did not make the root token knows only its hash.
    lite.token ||= token;
    clients();
    expect(await unary("gen", 1)).toEqual([5]);
    expect(await unary("gen", 4)).toEqual([5]);
  });

  /** Follows `sc` from seq 1 until it has `n` records (or the test gives up); `waiting` once it is at the tail. */
  const follow = (sc: StreamClient, transport: "session" | "sse", n: number) => {
    const stop = new AbortController();
    const got: number[] = [];
    let atTail!: () => void;
    const waiting = new Promise<void>((r) => (atTail = r));
    const done = (async () => {
      for await (const ev of sc.read({ seqNum: 1 }, { count: n, wait: 30 }, { transport, signal: stop.signal })) {
        if (ev.type === "heartbeat") atTail();
        else got.push(...ev.records.map((r) => r.seqNum));
      }
    })().catch(() => undefined);
    return { got, waiting, stop: () => (stop.abort(), done) };
  };

  it("reaches every follower reading at it whole: the data, the trim and the fence", async () => {
    for (const [transport, dialect] of [
      ["session", "s2"],
      ["sse", "s2"],
      ["session", "svc"],
    ] as const) {
      const name = `live-${transport}-${dialect}`;
      const c = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token, dialect });
      const sc = c.basin(basin).stream(name);
      await sc.append({ records: [fenceRecord("gen-1")] });
      const f = follow(sc, transport, 3);
      await f.waiting;
      await sdk
        .stream(name)
        .append(
          AppendInput.create([
            AppendRecord.string({ body: "chunk" }),
            AppendRecord.trim(FOREVER),
            AppendRecord.fence("end"),
          ]),
        );
      await eventually(async () => f.got.includes(3));
      await f.stop();
      expect(f.got, `${transport} (${dialect})`).toEqual([1, 2, 3]);
      await c.close();
    }
  });
});
