/**
 * Read-session resume (protocol.md §6.6; docs/design/reliability.md, "Read resume"): while 120k
 * records stream through a TCP fault proxy that cuts every connection inside its second frame (at a
 * random byte) — over 100 cuts — plus one black-hole longer than the heartbeat timeout, the
 * client's read session delivers every sequence number exactly once, in order, and honours its
 * count limit across reconnects.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { StreamClient } from "../../src/client/stream.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { type Lite, startLite } from "../helpers/lite.js";

const RECORDS = 120_000;
const PER_BATCH = 1000;
let lite: Lite;
let proxy: FaultProxy;
let direct: SvcClient;
let proxyClient: SvcClient;
let viaProxy: StreamClient;

beforeAll(async () => {
  lite = await startLite();
  direct = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  const basin = `resume-${process.pid}`;
  await direct.basins.create(basin);
  await direct.basin(basin).streams.create("s");
  const session = await direct.basin(basin).stream("s").appender();
  const acks = [];
  for (let i = 0; i < RECORDS / PER_BATCH; i++) {
    // 24 random bytes per record: frames barely compress, so cuts land inside them.
    acks.push(
      session.append({ records: Array.from({ length: PER_BATCH }, () => ({ headers: [], body: randomBytes(24) })) }),
    );
  }
  await Promise.all(acks);
  await session.close();
  proxy = await startFaultProxy(lite.port);
  // A faulty connection: each attempt may be cut before it makes progress, so allow more retries.
  proxyClient = new SvcClient({
    accountEndpoint: proxy.url,
    basinEndpoint: proxy.url,
    accessToken: lite.token,
    retries: 10,
  });
  viaProxy = proxyClient.basin(basin).stream("s");
}, 60_000);

afterAll(async () => {
  await proxyClient?.close();
  await direct?.close();
  await proxy?.close();
  await lite?.stop();
});

describe("read session through a faulty connection", () => {
  it("delivers every seq num exactly once over 100+ cuts and a black-hole", async () => {
    // Measure one catch-up frame (response headers included) through the proxy.
    const before = proxy.serverBytes;
    for await (const ev of viaProxy.read({ seqNum: 0 }, { count: PER_BATCH })) void ev;
    const frame = proxy.serverBytes - before;
    const budget = (): number => Math.floor(frame * (1.05 + Math.random() * 0.9));
    await proxyClient.close(); // its connections are closed: every one from here on gets a cut budget
    proxy.cutEachConnectionAfter(budget);
    const cutsBefore = proxy.cuts;
    const count = RECORDS - 123;
    let next = 0;
    let reconnects = 0;
    let holed = false;
    for await (const ev of viaProxy.read(
      { seqNum: 0 },
      { count },
      { heartbeatTimeoutMs: 1_500, onReconnect: () => reconnects++ },
    )) {
      if (ev.type !== "batch") continue;
      for (const r of ev.records) {
        if (r.seqNum !== next) throw new Error(`expected seq ${next}, got ${r.seqNum}`);
        next++;
      }
      if (!holed && next > RECORDS / 2) {
        // Silence longer than the heartbeat timeout: the client must notice and reconnect.
        holed = true;
        proxy.cutEachConnectionAfter(undefined);
        proxy.blackHole();
        setTimeout(() => {
          proxy.heal();
          proxy.cutEachConnectionAfter(budget);
        }, 2_500);
      }
    }
    const cuts = proxy.cuts - cutsBefore;
    console.log(`resume: ${next} records, ${cuts} cuts (frame ${frame} bytes), ${reconnects} reconnects`);
    expect(next).toBe(count);
    expect(cuts).toBeGreaterThanOrEqual(100);
  }, 120_000);
});
