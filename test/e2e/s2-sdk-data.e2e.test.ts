/**
 * S2's TypeScript SDK (`@s2-dev/streamstore`, pinned) drives svc lite's data plane, unchanged,
 * over both transports it has: `fetch` (unary JSON and protobuf over HTTP/1.1, sessions as
 * unary appends and SSE reads with `s2-format`) and `s2s` (sessions as `s2s/proto` frames over
 * h2c). Unary and session appends and reads, check-tail, fence and trim command records and
 * the append conditions they guard, 416, following the tail, a stream config sent with an
 * append or read that auto-creates its stream, and encrypted streams. Runs in both projects:
 * lite on lmdb and on PostgreSQL.
 */

import { randomBytes } from "node:crypto";
import {
  AppendInput,
  AppendRecord,
  BatchTransform,
  FencingTokenMismatchError,
  Producer,
  RangeNotSatisfiableError,
  type ReadRecord,
  type S2,
  type S2Basin,
  type S2Stream,
  SeqNumMismatchError,
} from "@s2-dev/streamstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { reported, sdkClient, sdkError } from "../helpers/s2-sdk.js";

let lite: Lite;
let s2: S2;
beforeAll(async () => {
  lite = await startLite();
  s2 = sdkClient(lite);
});
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

const text = (...bodies: string[]) => AppendInput.create(bodies.map((body) => AppendRecord.string({ body })));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Every record of a read session, until it ends. */
async function drain<F extends "string" | "bytes">(session: AsyncIterable<ReadRecord<F>>): Promise<ReadRecord<F>[]> {
  const out: ReadRecord<F>[] = [];
  for await (const r of session) out.push(r);
  return out;
}

describe.each(["fetch", "s2s"] as const)("the data plane through S2's SDK, transport %s", (transport) => {
  let basin: S2Basin;
  const streams: S2Stream[] = [];
  const stream = (name: string, opts: { encryptionKey?: string } = {}): S2Stream => {
    const s = basin.stream(name, { forceTransport: transport, ...opts });
    streams.push(s);
    return s;
  };
  beforeAll(async () => {
    const name = uniqueBasin(`sdk-data-${transport}`);
    await s2.basins.create({ basin: name, config: { createStreamOnAppend: true, createStreamOnRead: true } });
    basin = s2.basin(name);
  });
  afterAll(async () => {
    await Promise.all(streams.map((s) => s.close()));
  });

  it("appends and reads unary, as text and as bytes, and checks the tail", async () => {
    const s = stream("unary");
    const ack = await s.append(
      AppendInput.create([
        AppendRecord.string({ body: "hello", headers: [["kind", "greeting"]], timestamp: 1_000 }),
        AppendRecord.bytes({
          body: new Uint8Array([0, 1, 0xff]),
          headers: [[new Uint8Array([0xfe]), new Uint8Array([7])]],
        }),
      ]),
    );
    expect([ack.start.seqNum, ack.end.seqNum, ack.tail.seqNum]).toEqual([0, 2, 2]);
    expect(ack.start.timestamp).toEqual(new Date(1_000));
    const asText = await s.read({ start: { from: { seqNum: 0 } } });
    expect(asText.records.map((r) => [r.seqNum, r.body, r.headers])).toEqual([
      [0, "hello", [["kind", "greeting"]]],
      [1, "\u0000\u0001\ufffd", [["\ufffd", "\u0007"]]],
    ]);
    const asBytes = await s.read({ start: { from: { seqNum: 1 } } }, { as: "bytes" });
    expect(asBytes.records.map((r) => [hex(r.body), r.headers.map(([n, v]) => [hex(n), hex(v)])])).toEqual([
      ["0001ff", [["fe", "07"]]],
    ]);
    const tail = await s.checkTail();
    expect(tail.tail.seqNum).toBe(2);
    const bounded = await s.read({ start: { from: { tailOffset: 1 } }, stop: { limits: { count: 5 } } });
    expect(bounded.records.map((r) => r.seqNum)).toEqual([1]);
    const until = await s.read({ start: { from: { timestamp: 0 } }, stop: { untilTimestamp: 1_001 } });
    expect(until.records.map((r) => r.seqNum)).toEqual([0]);
  });

  it("appends through an append session: acks in order, contiguous", async () => {
    const s = stream("session-append");
    const session = await s.appendSession();
    const tickets = [];
    for (let i = 0; i < 5; i++) tickets.push(await session.submit(text(`a${i}`, `b${i}`)));
    const acks = await Promise.all(tickets.map((t) => t.ack()));
    await session.close();
    expect(acks.map((a) => [a.start.seqNum, a.end.seqNum])).toEqual([
      [0, 2],
      [2, 4],
      [4, 6],
      [6, 8],
      [8, 10],
    ]);
    const read = await s.read({ start: { from: { seqNum: 0 } } });
    expect(read.records.map((r) => r.body)).toEqual(["a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4"]);
  });

  it("batches records with the SDK's Producer over an append session", async () => {
    const s = stream("producer");
    const producer = new Producer(new BatchTransform({ lingerDurationMillis: 5 }), await s.appendSession());
    const tickets = [];
    for (let i = 0; i < 20; i++) tickets.push(await producer.submit(AppendRecord.string({ body: `r${i}` })));
    const seqNums = (await Promise.all(tickets.map((t) => t.ack()))).map((a) => a.seqNum());
    await producer.close();
    expect(seqNums).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("reads through a read session: bounded, as bytes, and following the tail", async () => {
    const s = stream("session-read");
    await s.append(text("r0", "r1", "r2"));
    const bounded = await drain(
      await s.readSession({ start: { from: { seqNum: 1 } }, stop: { limits: { count: 2 } } }),
    );
    expect(bounded.map((r) => [r.seqNum, r.body])).toEqual([
      [1, "r1"],
      [2, "r2"],
    ]);
    const bytes = await drain(
      await s.readSession({ start: { from: { seqNum: 0 } }, stop: { limits: { bytes: 10 } } }, { as: "bytes" }),
    );
    expect(bytes.map((r) => hex(r.body))).toEqual([hex(Buffer.from("r0"))]);
    const follow = await s.readSession({ start: { from: { tailOffset: 0 } }, stop: { waitSecs: 2 } });
    setTimeout(() => void s.append(text("live")), 200);
    const live = await drain(follow);
    expect(live.map((r) => [r.seqNum, r.body])).toEqual([[3, "live"]]);
  });

  it("fences and trims with command records; the conditions they guard fail as the SDK's errors", async () => {
    const s = stream("commands");
    await s.append(text("x0", "x1", "x2"));
    await s.append(AppendInput.create([AppendRecord.fence("writer-1")]));
    const fenced = await sdkError(
      s.append(AppendInput.create([AppendRecord.string({ body: "late" })], { fencingToken: "writer-0" })),
    );
    expect(fenced).toBeInstanceOf(FencingTokenMismatchError);
    expect([(fenced as FencingTokenMismatchError).expectedFencingToken, fenced.status]).toEqual(["writer-1", 412]);
    const seq = await sdkError(
      s.append(AppendInput.create([AppendRecord.string({ body: "late" })], { matchSeqNum: 99 })),
    );
    expect(seq).toBeInstanceOf(SeqNumMismatchError);
    expect([(seq as SeqNumMismatchError).expectedSeqNum, seq.status]).toEqual([4, 412]);
    const ok = await s.append(
      AppendInput.create([AppendRecord.string({ body: "x4" })], { fencingToken: "writer-1", matchSeqNum: 4 }),
    );
    expect(ok.start.seqNum).toBe(4);
    // In an append session the same refusal is a terminal frame (s2s) or a 412 (fetch).
    const session = await s.appendSession();
    const refused = await session.submit(
      AppendInput.create([AppendRecord.string({ body: "late" })], { fencingToken: "writer-0" }),
    );
    const inSession = await sdkError(refused.ack());
    expect(inSession).toBeInstanceOf(FencingTokenMismatchError);
    await session.close().catch(() => undefined);
    const trim = await s.append(AppendInput.create([AppendRecord.trim(2)], { fencingToken: "writer-1" }));
    expect(trim.start.seqNum).toBe(5);
    const all = await s.read({ start: { from: { seqNum: 0 } } });
    const commands = all.records.filter((r) => r.headers.length === 1 && r.headers[0]![0] === "");
    expect(commands.map((r) => [r.seqNum, r.headers[0]![1]])).toEqual(
      expect.arrayContaining([
        [3, "fence"],
        [5, "trim"],
      ]),
    );
    const data = await s.read({ start: { from: { seqNum: 0 } }, ignoreCommandRecords: true });
    expect(data.records.every((r) => r.headers.length === 0)).toBe(true);
    // Trimming is asynchronous (§7.7): records below 2 disappear eventually.
    await eventually(async () => (await s.read({ start: { from: { seqNum: 0 } } })).records[0]?.seqNum === 2);
  });

  it("reports a start past the tail as RangeNotSatisfiableError with the tail, unary and in a session", async () => {
    const s = stream("range");
    await s.append(text("only"));
    const unary = await sdkError(s.read({ start: { from: { seqNum: 5 } } }));
    expect(unary).toBeInstanceOf(RangeNotSatisfiableError);
    expect([unary.status, (unary as RangeNotSatisfiableError).tail?.seqNum]).toEqual([416, 1]);
    // fetch (SSE) refuses when the session opens, s2s when it is first read: either way, before any record.
    const session = await sdkError(
      (async () => drain(await s.readSession({ start: { from: { seqNum: 1 } }, stop: { limits: { count: 1 } } })))(),
    );
    expect(session).toBeInstanceOf(RangeNotSatisfiableError);
    expect([session.status, (session as RangeNotSatisfiableError).tail?.seqNum]).toEqual([416, 1]);
    expect((await s.read({ start: { from: { seqNum: 5 }, clamp: true }, stop: { waitSecs: 1 } })).records).toEqual([]);
  });

  it("applies the stream config sent with an append or read that auto-creates the stream, and only then", async () => {
    const appended = stream("config-on-append");
    await appended.append(
      AppendInput.create([AppendRecord.string({ body: "a" })], {
        streamConfig: { retentionPolicy: { ageSecs: 77 }, timestamping: { mode: "arrival" } },
      }),
    );
    const a = await basin.streams.getConfig({ stream: "config-on-append" });
    expect([a.retentionPolicy, a.timestamping?.mode, a.storageClass]).toEqual([{ ageSecs: 77 }, "arrival", "express"]);
    const sessionMade = stream("config-on-session");
    const session = await sessionMade.appendSession({ streamConfig: { storageClass: "standard" } });
    await (await session.submit(text("s"))).ack();
    await session.close();
    expect((await basin.streams.getConfig({ stream: "config-on-session" })).storageClass).toBe("standard");
    const read = stream("config-on-read");
    await drain(
      await read.readSession({
        start: { from: { seqNum: 0 } },
        stop: { waitSecs: 0 },
        streamConfig: { deleteOnEmpty: { minAgeSecs: 30 } },
      }),
    );
    expect((await basin.streams.getConfig({ stream: "config-on-read" })).deleteOnEmpty?.minAgeSecs).toBe(30);
    // The stream exists now: a config sent with a later append is ignored.
    await appended.append(
      AppendInput.create([AppendRecord.string({ body: "b" })], { streamConfig: { retentionPolicy: { ageSecs: 5 } } }),
    );
    expect((await basin.streams.getConfig({ stream: "config-on-append" })).retentionPolicy).toEqual({ ageSecs: 77 });
    const bad = stream("config-bad");
    const refused = await sdkError(
      bad.append(
        AppendInput.create([AppendRecord.string({ body: "a" })], { streamConfig: { retentionPolicy: { ageSecs: 0 } } }),
      ),
    );
    expect(reported(refused)).toEqual({ status: 422, code: "invalid", origin: "server" });
    expect(reported(await sdkError(basin.streams.getConfig({ stream: "config-bad" })))).toEqual({
      status: 404,
      code: "stream_not_found",
      origin: "server",
    });
  });

  it("appends to and reads from an encrypted stream with s2-encryption-key", async () => {
    const name = uniqueBasin(`sdk-enc-${transport}`);
    await s2.basins.create({ basin: name, config: { createStreamOnAppend: true, streamCipher: "aes-256-gcm" } });
    const key = randomBytes(32).toString("base64");
    const encBasin = s2.basin(name);
    const s = encBasin.stream("secret", { forceTransport: transport, encryptionKey: key });
    streams.push(s);
    await s.append(text("classified"));
    expect((await s.read({ start: { from: { seqNum: 0 } } })).records.map((r) => r.body)).toEqual(["classified"]);
    expect(
      (await drain(await s.readSession({ start: { from: { seqNum: 0 } }, stop: { limits: { count: 1 } } }))).map(
        (r) => r.body,
      ),
    ).toEqual(["classified"]);
    expect((await encBasin.streams.list()).streams.map((i) => i.cipher)).toEqual(["aes-256-gcm"]);
    const keyless = encBasin.stream("secret", { forceTransport: transport });
    streams.push(keyless);
    const missing = await sdkError(keyless.read({ start: { from: { seqNum: 0 } } }));
    expect(reported(missing)).toEqual({ status: 400, code: "bad_header", origin: "server" });
    expect(missing.message).toContain("s2-encryption-key");
    const wrong = encBasin.stream("secret", {
      forceTransport: transport,
      encryptionKey: randomBytes(32).toString("base64"),
    });
    streams.push(wrong);
    expect(reported(await sdkError(wrong.read({ start: { from: { seqNum: 0 } } })))).toEqual({
      status: 400,
      code: "decryption_failed",
      origin: "server",
    });
  });
});
