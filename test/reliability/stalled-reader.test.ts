/**
 * A reader that stops reading must not make svc lite buffer without limit (L4 of
 * docs/design/reliability.md, "Load"): a read session follows a stream and then never reads its
 * socket again while a writer appends 200 MiB to the same stream. The server's RSS may grow by at
 * most 64 MiB (its sessions pull from the store only as the socket drains, and a live follower that
 * falls behind drops back to storage reads instead of queueing), and the writer finishes.
 */
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import { afterAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { type Lite, startLite } from "../helpers/lite.js";

const MIB = 1024 * 1024;
const PHASES_MIB = [100, 300];
let lite: Lite | undefined;
afterAll(async () => {
  await lite?.stop();
});

/** Anonymous resident memory: buffers live here; lmdb's memory-mapped file pages do not. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/RssAnon:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

describe("a stalled reader", () => {
  it("keeps lite's memory flat while 400 MiB are appended behind it", async () => {
    lite = await startLite({ env: { NODE_OPTIONS: "--max-old-space-size=64" } });
    const client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
    const basin = `stalled-${process.pid}`;
    await client.basins.create(basin, { config: { default_stream_config: { retention_policy: { infinite: {} } } } });
    await client.basin(basin).streams.create("s");
    const stream = client.basin(basin).stream("s");

    // The stalled reader: a raw h2 read session, paused after its first frame.
    const session = http2.connect(lite.url, { settings: { initialWindowSize: 64 * 1024 } });
    session.on("error", () => undefined);
    const req = session.request({
      ":method": "GET",
      ":path": "/v1/streams/s/records?seq_num=0",
      authorization: `Bearer ${lite.token}`,
      "svc-basin": basin,
      "content-type": "svc/proto",
    });
    req.on("error", () => undefined);
    await new Promise<void>((resolve) =>
      req.once("data", () => {
        req.pause();
        resolve();
      }),
    );

    const before = rssMiB(lite.pid!);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(lite!.pid!));
    }, 50);
    const writer = await stream.appender();
    const body = new Uint8Array(1024).fill(0x73);
    const input = { records: Array.from({ length: 1000 }, () => ({ headers: [], body })) };
    const acks = [];
    const peaks: number[] = [];
    for (const mib of PHASES_MIB) {
      for (let i = 0; i < (mib * MIB) / (1000 * 1024); i++) {
        acks.push(writer.append(input));
        if (acks.length >= 8) await acks[acks.length - 8];
      }
      await Promise.all(acks);
      peaks.push(Math.max(peak, rssMiB(lite.pid!)));
    }
    await writer.close();
    clearInterval(sampler);
    console.log(
      `stalled reader: lite anonymous RSS ${before.toFixed(0)} MiB before, peak ${peaks.map((p) => p.toFixed(0)).join(" then ")} MiB after ${PHASES_MIB.join(" + ")} MiB`,
    );
    expect(peaks[0]! - before).toBeLessThanOrEqual(128);
    expect(peaks[1]! - peaks[0]!).toBeLessThanOrEqual(32);
    expect((await stream.checkTail()).seqNum).toBe(acks.length * 1000);
    req.close();
    session.destroy();
    await client.close();
  }, 120_000);
});
