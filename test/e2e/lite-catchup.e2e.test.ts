/**
 * Catch-up reads against stored batches of every shape: lite sends the records of
 * stored batches as the bytes it stored, picks them by index, keeps the stored batch an output
 * batch ended inside for the next one, and reads as many stored batches at a time as the
 * output still has room for. Whatever the start, the limits and the transport, a reader must
 * get exactly the records appended, in order, each output batch within 1,000 records and
 * 1 MiB metered, and nothing below a trim point.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { trimRecord } from "../../src/rules/commands.js";
import { meteredBatchSize, meteredSize } from "../../src/rules/records.js";
import type { AppendRecord, ReadLimits, SequencedRecord } from "../../src/types.js";
import { eventually, type Lite, startLite, uniqueBasin } from "../helpers/lite.js";

const enc = new TextEncoder();
// Stored batch sizes: single records, odd sizes, full 1,000-record batches, and big records.
const SHAPES: Array<{ n: number; body: number }> = [
  { n: 1, body: 10 },
  { n: 7, body: 300 },
  { n: 1000, body: 1000 },
  { n: 333, body: 1024 },
  { n: 999, body: 20 },
  { n: 2, body: 60_000 },
  { n: 1000, body: 900 },
  { n: 517, body: 2000 },
  { n: 16, body: 64_000 },
  { n: 64, body: 1 },
  { n: 1000, body: 1030 },
  { n: 3, body: 0 },
  { n: 250, body: 4000 },
];

let lite: Lite;
let client: SvcClient;
const basin = uniqueBasin();
const expected: AppendRecord[] = [];

function recordAt(seq: number, body: number): AppendRecord {
  const headers = seq % 3 === 0 ? [{ name: enc.encode(`h${seq % 5}`), value: enc.encode(String(seq)) }] : [];
  const text = enc.encode(`#${seq}:`);
  const out = new Uint8Array(Math.max(body, text.length));
  out.fill(97 + (seq % 26));
  out.set(text.subarray(0, out.length));
  return { headers, body: out, timestamp: 1_700_000_000_000 + seq };
}

beforeAll(async () => {
  lite = await startLite();
  client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  await client.basins.create(basin);
  for (const name of ["s", "t"])
    await client.basin(basin).streams.create(name, { config: { timestamping: { mode: "client-require" } } });
  for (const { n, body } of SHAPES) {
    const records = Array.from({ length: n }, (_, i) => recordAt(expected.length + i, body));
    await client.basin(basin).stream("s").append({ records });
    expected.push(...records);
  }
});

afterAll(async () => {
  await client?.close();
  expect(await lite?.stop()).toBe(0);
});

/** What a read from `start` with `limits` must return (§7.4: count, then metered bytes). */
function want(start: number, limits: ReadLimits): number[] {
  const out: number[] = [];
  let bytes = 0;
  for (let seq = start; seq < expected.length; seq++) {
    if (limits.count !== undefined && out.length >= limits.count) break;
    const size = meteredSize(expected[seq]!);
    if (limits.bytes !== undefined && bytes + size > limits.bytes) break;
    bytes += size;
    out.push(seq);
  }
  return out;
}

function check(records: SequencedRecord[], seqs: number[]): void {
  expect(records.map((r) => r.seqNum)).toEqual(seqs);
  for (const r of records) {
    const e = expected[r.seqNum]!;
    expect(r.timestamp).toBe(e.timestamp);
    expect(Buffer.from(r.body).equals(Buffer.from(e.body))).toBe(true);
    expect(r.headers.map((h) => [Buffer.from(h.name).toString(), Buffer.from(h.value).toString()])).toEqual(
      e.headers.map((h) => [Buffer.from(h.name).toString(), Buffer.from(h.value).toString()]),
    );
  }
}

async function sessionRead(stream: string, start: number, limits: ReadLimits): Promise<SequencedRecord[][]> {
  const batches: SequencedRecord[][] = [];
  for await (const ev of client
    .basin(basin)
    .stream(stream)
    .read({ seqNum: start }, { ...limits, wait: 0 })) {
    if (ev.type === "batch" && ev.records.length > 0) batches.push(ev.records);
  }
  return batches;
}

// Starts at and around every stored batch boundary, and inside batches.
const STARTS = (() => {
  const s = new Set<number>([0]);
  let at = 0;
  for (const { n } of SHAPES) {
    for (const d of [-1, 0, 1, Math.floor(n / 2)]) if (at + d >= 0 && at + d < at + n) s.add(at + d);
    at += n;
  }
  return [...s].sort((a, b) => a - b);
})();

describe("catch-up from stored batches", () => {
  it("a read session from the start gets every record, in batches within the limits", async () => {
    const batches = await sessionRead("s", 0, {});
    check(batches.flat(), want(0, {}));
    for (const b of batches) {
      expect(b.length).toBeLessThanOrEqual(1000);
      expect(meteredBatchSize(b)).toBeLessThanOrEqual(1024 * 1024);
    }
  });

  it("from every start around and inside stored batches, with count and byte limits, sessions and unary reads get exactly their slice", async () => {
    const stream = client.basin(basin).stream("s");
    for (const [k, start] of STARTS.entries()) {
      const limits: ReadLimits = [
        {},
        { count: 1 },
        { count: 1500 },
        { bytes: 70_000 },
        { bytes: 1_500_000, count: 1200 },
      ][k % 5]!;
      check((await sessionRead("s", start, limits)).flat(), want(start, limits));
      const unary = await stream.readBatch({ seqNum: start }, limits);
      const seqs = want(start, {
        count: Math.min(limits.count ?? 1000, 1000),
        bytes: Math.min(limits.bytes ?? 1024 * 1024, 1024 * 1024),
      });
      check(unary.records, seqs);
    }
  });

  it("a trim point inside a batch, once carried out, is respected by a read that starts below it", async () => {
    const t = client.basin(basin).stream("t");
    const all: AppendRecord[] = [];
    for (const { n, body } of SHAPES.slice(0, 6)) {
      const records = Array.from({ length: n }, (_, i) => recordAt(all.length + i, body));
      await t.append({ records });
      all.push(...records);
    }
    const point = 1500; // inside the 333-record batch
    await t.append({ records: [{ ...trimRecord(point), timestamp: 1_800_000_000_000 }] });
    // The sweep carries the trim out a sweep period after it (protocol.md §7.7).
    const got = await eventually(async () => {
      const read = (await sessionRead("t", 0, {})).flat();
      return read[0]!.seqNum === point && read;
    });
    expect(got.map((r) => r.seqNum)).toEqual(Array.from({ length: all.length + 1 - point }, (_, i) => point + i));
  });
});
