/**
 * Found by a bad-input probe: a record of many tiny headers takes up to twice its metered
 * size when encoded (a header `a: b` is 4 metered bytes, 8 on the wire), and reads cut their
 * batches by metered size only. So lite accepted a record of exactly 1 MiB metered (262,142
 * headers) that no read session could deliver: the frame it needed was over the 2 MiB limit,
 * and the session ended with `400 bad_frame` at that record, live or catching up, with nothing
 * after it readable that way. Two records within 1 MiB metered together did the same.
 *
 * Now an append is refused (422) when one of its records could not fit a read frame alone,
 * and read batches are also cut at what a frame holds, on the catch-up and the live path.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { AppendRecord, ReadEvent } from "../../src/types.js";
import { encodeAppendInput } from "../../src/wire/proto.js";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
let client: SvcClient;
const basin = `frame-overflow-${process.pid}`;
const a = new TextEncoder().encode("a");
const b = new TextEncoder().encode("b");
const headers = (n: number) => Array.from({ length: n }, () => ({ name: a, value: b }));
const rec = (n: number, body = ""): AppendRecord => ({ headers: headers(n), body: new TextEncoder().encode(body) });

beforeAll(async () => {
  lite = await startLite();
  client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  await client.basins.create(basin);
  for (const s of ["one", "two"]) await client.basin(basin).streams.create(s);
});

afterAll(async () => {
  await client?.close();
  await lite?.stop();
});

const appendRaw = (stream: string, records: AppendRecord[]) =>
  liteClient(lite).call("POST", `/v1/streams/${stream}/records`, {
    basin,
    body: encodeAppendInput({ records }),
    headers: { "content-type": "application/protobuf", accept: "application/json" },
  });

/** Every record a read session delivers from `seqNum` until `count` records came. */
async function sessionRead(
  stream: string,
  seqNum: number,
  count: number,
): Promise<{ seqNum: number; headers: number; body: string }[]> {
  const out: { seqNum: number; headers: number; body: string }[] = [];
  for await (const ev of client
    .basin(basin)
    .stream(stream)
    .read({ seqNum }, { count, wait: 10 }) as AsyncGenerator<ReadEvent>) {
    if (ev.type !== "batch") continue;
    for (const r of ev.records)
      out.push({ seqNum: r.seqNum, headers: r.headers.length, body: new TextDecoder().decode(r.body) });
  }
  return out;
}

describe("records of many tiny headers", () => {
  it("a record that could not fit one read frame is refused, and nothing is stored", async () => {
    const r = await appendRaw("one", [rec(262_142)]); // 1,048,576 metered: within the record limit
    expect(r.status).toBe(422);
    expect(r.json().message).toMatch(/would take \d+ bytes when read/);
    expect((await liteClient(lite).call("GET", "/v1/streams/one/records/tail", { basin })).json().tail.seq_num).toBe(0);
  });

  it("two records that fit 1 MiB metered but not one frame are read in two batches, live and catching up", async () => {
    const stream = client.basin(basin).stream("two");
    await stream.append({ records: [{ headers: [], body: new TextEncoder().encode("before") }] });
    const live = sessionRead("two", 1, 3); // following from the tail: the next records arrive live
    await new Promise((r) => setTimeout(r, 200));
    // 1,048,576 metered together; about 2,097,150 bytes encoded, more than a frame holds.
    expect((await appendRaw("two", [rec(200_000), rec(62_140)])).status).toBe(200);
    await stream.append({ records: [{ headers: [], body: new TextEncoder().encode("after") }] });
    const expected = [
      { seqNum: 1, headers: 200_000, body: "" },
      { seqNum: 2, headers: 62_140, body: "" },
      { seqNum: 3, headers: 0, body: "after" },
    ];
    expect(await live).toEqual(expected);
    expect(await sessionRead("two", 1, 3)).toEqual(expected); // catch-up from storage
  }, 30_000);
});
