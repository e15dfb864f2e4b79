/**
 * Bug: a client's unary requests over node:http (the default transport) shared at most 16
 * connections per origin. A unary read that waits at the tail (`wait`, up to 60 s) holds its
 * connection while it waits, so 16 of them on one SvcClient made every other request of that
 * client (a check-tail, an append) queue until one of the reads returned.
 *
 * Here: 20 reads wait at the tail of a quiet stream for 20 s; a check-tail and an append on the
 * same client must be answered while all of them still wait (the append then ends them).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
let client: SvcClient;
const basin = uniqueBasin("waiting");

beforeAll(async () => {
  lite = await startLite();
  client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  await client.basins.create(basin);
  await client.basin(basin).streams.create("s");
}, 30_000);

afterAll(async () => {
  await client?.close();
  await lite?.stop();
});

it("reads waiting at the tail leave the client's other requests their connections", async () => {
  const s = client.basin(basin).stream("s");
  let returned = 0;
  const waiting = Array.from({ length: 20 }, () =>
    s.readBatch({ seqNum: 0 }, { wait: 20 }).then((b) => {
      returned++;
      return b;
    }),
  );
  await new Promise((r) => setTimeout(r, 500)); // every read is at the server, waiting
  const tail = await s.checkTail();
  expect(tail.seqNum).toBe(0);
  expect(returned, "a read returned before the check-tail was answered").toBe(0);
  const ack = await s.append({ records: [{ headers: [], body: new TextEncoder().encode("wake") }] });
  expect(ack.start.seqNum).toBe(0);
  const batches = await Promise.all(waiting);
  for (const b of batches) expect(b.records.map((r) => r.seqNum)).toEqual([0]);
}, 30_000);
