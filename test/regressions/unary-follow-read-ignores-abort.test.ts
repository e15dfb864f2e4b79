/**
 * Bug: a follow read over unary requests (`stream.read(…, { transport: "unary", signal })`) went
 * on waiting after its signal was aborted: the long-poll in flight (up to 60 s at the tail) was
 * not cut, so the read ended only when that request answered. A program following 20 streams
 * this way and stopping held 20 requests (and their pooled connections) open for a minute; the
 * same read over sessions or SSE ended at once. Now the abort cuts the long-poll, the request is
 * neither retried nor sent to another node, and the read ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { type Lite, startLite } from "../helpers/lite.js";

let lite: Lite;
let client: SvcClient;

beforeAll(async () => {
  lite = await startLite();
  client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  await client.basins.create("abort-unary-basin");
  await client.basin("abort-unary-basin").streams.create("s");
}, 30_000);

afterAll(async () => {
  await client?.close();
  await lite?.stop();
});

describe("a unary follow read", () => {
  it("ends at once when its signal is aborted, while its long-poll waits at the tail", async () => {
    const stream = client.basin("abort-unary-basin").stream("s");
    await stream.append({ records: [{ headers: [], body: new TextEncoder().encode("one") }] });
    const ac = new AbortController();
    const got: number[] = [];
    const done = (async () => {
      for await (const ev of stream.read({ seqNum: 0 }, {}, { transport: "unary", signal: ac.signal })) {
        if (ev.type === "batch") for (const r of ev.records) got.push(r.seqNum);
      }
    })();
    const deadline = Date.now() + 5_000;
    while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300)); // the next long-poll now waits at the tail
    const aborted = Date.now();
    ac.abort();
    await done;
    expect(got).toEqual([0]);
    expect(Date.now() - aborted, "ms from the abort to the end of the read").toBeLessThan(1_000);
  }, 30_000);
});
