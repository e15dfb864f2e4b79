/**
 * Sessions at the protocol level (protocol.md §6, conformance checklist §12 items 41–54),
 * over HTTP/1.1 and h2c, with raw exchanges and the wire codecs: pipelined appends and ack
 * order, poisoning, bad frames, per-frame compression, follow with heartbeats, every read end
 * condition, and SSE with Last-Event-ID resume.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppendInput } from "../../src/types.js";
import { compress, decompress } from "../../src/wire/compression.js";
import { decodeTerminal, encodeFrame, type Frame, FrameParser } from "../../src/wire/framing.js";
import { decodeAppendAck, decodeReadBatch, encodeAppendInput } from "../../src/wire/proto.js";
import { type Lite, type LiteClient, liteClient, type Protocol, startLite, uniqueBasin } from "../helpers/lite.js";
import { rawExchange } from "../helpers/raw-session.js";

const enc = new TextEncoder();
let lite: Lite;
beforeAll(async () => {
  lite = await startLite();
});
afterAll(async () => {
  await lite?.stop();
});

function frames(bytes: Buffer): Frame[] {
  const p = new FrameParser();
  p.push(bytes);
  const out: Frame[] = [];
  for (let f = p.next(); f; f = p.next()) out.push(f);
  p.end();
  return out;
}

const input = (bodies: string[], extra: Partial<AppendInput> = {}): Uint8Array =>
  encodeFrame(encodeAppendInput({ records: bodies.map((b) => ({ headers: [], body: enc.encode(b) })), ...extra }));

async function payload(f: Frame): Promise<Uint8Array> {
  return f.compression === "none" ? f.payload : decompress(f.payload, f.compression);
}

describe.each(["h1", "h2"] as Protocol[])("sessions over %s", (protocol) => {
  let c: LiteClient;
  let basin: string;
  const headers = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${lite.token}`,
    "svc-basin": basin,
    ...extra,
  });
  const path = (stream: string, q = "") => `/v1/streams/${encodeURIComponent(stream)}/records${q}`;
  const appendSession = (stream: string, extra: Record<string, string> = {}) =>
    rawExchange(lite.url, protocol, {
      method: "POST",
      path: path(stream),
      headers: headers({ "content-type": "svc/proto", ...extra }),
      duplex: true,
    });
  const readSession = (stream: string, q: string, extra: Record<string, string> = {}) =>
    rawExchange(lite.url, protocol, {
      method: "GET",
      path: path(stream, q),
      headers: headers({ "content-type": "svc/proto", ...extra }),
    });
  const newStream = async (name: string, records = 0) => {
    expect((await c.call("POST", "/v1/streams", { basin, json: { stream: name } })).status).toBe(201);
    if (records > 0) {
      const r = await c.call("POST", path(name), {
        basin,
        json: { records: Array.from({ length: records }, (_, i) => ({ body: `r${i}` })) },
      });
      expect(r.status).toBe(200);
    }
    return name;
  };
  const tail = async (stream: string) =>
    (await c.call("GET", `${path(stream)}/tail`, { basin })).json().tail.seq_num as number;

  beforeAll(async () => {
    c = liteClient(lite, protocol);
    basin = uniqueBasin(`sess-${protocol}`);
    expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
  });
  afterAll(async () => {
    await c?.close();
  });

  it("acks pipelined inputs in order and ends cleanly on half-close (41)", async () => {
    const s = await newStream("pipelined");
    const ex = await appendSession(s);
    expect([ex.status, ex.headers["content-type"]]).toEqual([200, "svc/proto"]);
    ex.write(input(["a", "b"]));
    ex.write(input(["c"]));
    ex.write(input(["d", "e", "f"]));
    ex.end();
    const got = frames(await ex.done);
    expect(got.every((f) => !f.terminal)).toBe(true);
    const acks = got.map((f) => decodeAppendAck(f.payload));
    expect(acks.map((a) => [a.start.seqNum, a.end.seqNum])).toEqual([
      [0, 2],
      [2, 3],
      [3, 6],
    ]);
    expect(acks.every((a) => a.tail.seqNum >= a.end.seqNum)).toBe(true);
  });

  it("poisons at the first failing input: earlier acks, one terminal 412, nothing later (42)", async () => {
    const s = await newStream("poisoned");
    const ex = await appendSession(s);
    ex.write(input(["one"]));
    ex.write(input(["two"], { matchSeqNum: 7 }));
    ex.write(input(["three"]));
    ex.end();
    const got = frames(await ex.done);
    expect(got.length).toBe(2);
    expect(decodeAppendAck(got[0]!.payload).end.seqNum).toBe(1);
    expect(got[1]!.terminal).toBe(true);
    expect(decodeTerminal(got[1]!.payload)).toEqual({ status: 412, body: { seq_num_mismatch: 1 } });
    expect(await tail(s)).toBe(1);
  });

  it.each([
    ["an empty batch", encodeFrame(encodeAppendInput({ records: [] })), 422, "invalid"],
    ["compression bits 11", Uint8Array.of(0, 0, 2, 0x60, 0), 400, "bad_frame"],
    ["a terminal frame from the client", Uint8Array.of(0, 0, 3, 0x80, 1, 144), 400, "bad_frame"],
    ["a frame over 2 MiB", Uint8Array.of(0x20, 0, 1, 0), 400, "bad_frame"],
  ])("answers %s with a terminal frame after the earlier acks (43)", async (_what, bad, status, code) => {
    const s = await newStream(`bad-${code}-${status}-${Math.random().toString(36).slice(2, 6)}`);
    const ex = await appendSession(s);
    ex.write(input(["fine"]));
    ex.write(bad);
    ex.end();
    const got = frames(await ex.done);
    expect(got.length).toBe(2);
    const t = decodeTerminal(got[1]!.payload);
    expect([t.status, (t.body as { code: string }).code]).toEqual([status, code]);
    expect(await tail(s)).toBe(1);
  });

  it("compresses frames of 1 KiB or more per Accept-Encoding and accepts compressed inputs (44)", async () => {
    const s = await newStream("compressed");
    const big = "x".repeat(3000);
    const ex = await appendSession(s, { "accept-encoding": "gzip" });
    ex.write(
      encodeFrame(await compress(encodeAppendInput({ records: [{ headers: [], body: enc.encode(big) }] }), "zstd"), {
        compression: "zstd",
      }),
    );
    ex.write(
      encodeFrame(await compress(encodeAppendInput({ records: [{ headers: [], body: enc.encode(big) }] }), "gzip"), {
        compression: "gzip",
      }),
    );
    ex.write(input(["small"]));
    ex.end();
    expect(frames(await ex.done).map((f) => f.compression)).toEqual(["none", "none", "none"]); // acks are tiny
    for (const [accept, want] of [
      ["gzip", "gzip"],
      ["zstd, gzip", "zstd"],
      ["br", "none"],
    ] as const) {
      const r = await readSession(s, "?seq_num=0&count=3", { "accept-encoding": accept });
      const got = frames(await r.done);
      expect(got[0]!.compression).toBe(want);
      const batch = decodeReadBatch(await payload(got[0]!));
      expect(batch.records.map((x) => x.body.length)).toEqual([3000, 3000, 5]);
    }
    const small = frames(await (await readSession(s, "?seq_num=2&count=1", { "accept-encoding": "zstd" })).done);
    expect(small[0]!.compression).toBe("none");
  });

  it("follows: a heartbeat at once on reaching the tail, then live batches with tail (45)", async () => {
    const s = await newStream("follow", 2);
    const r = await readSession(s, "?seq_num=0");
    const first = await r.waitFor(1);
    void first;
    await new Promise((res) => setTimeout(res, 200));
    await c.call("POST", path(s), { basin, json: { records: [{ body: "live" }] } });
    let got: Frame[] = [];
    for (let i = 0; i < 50 && got.length < 3; i++) {
      await new Promise((res) => setTimeout(res, 50));
      const p = new FrameParser();
      p.push(r.received());
      got = [];
      for (let f = p.next(); f; f = p.next()) got.push(f);
    }
    r.close();
    const batches = got.map((f) => decodeReadBatch(f.payload));
    expect(batches[0]!.records.length).toBe(2);
    expect(batches[0]!.tail).toBeUndefined();
    expect(batches[1]).toEqual({ records: [], tail: expect.objectContaining({ seqNum: 2 }) });
    expect(batches[2]!.records.map((x) => x.seqNum)).toEqual([2]);
    expect(batches[2]!.tail?.seqNum).toBe(3);
  });

  it("ends cleanly at count, and answers 416 at the tail with a count and no wait (46)", async () => {
    const s = await newStream("bounded", 10);
    const got = frames(await (await readSession(s, "?seq_num=0&count=3")).done);
    expect(got.every((f) => !f.terminal)).toBe(true);
    expect(got.flatMap((f) => decodeReadBatch(f.payload).records.map((x) => x.seqNum))).toEqual([0, 1, 2]);
    const atTail = await readSession(s, "?seq_num=10&count=3");
    expect(atTail.status).toBe(416);
    expect(JSON.parse((await atTail.done).toString())).toEqual({
      tail: { seq_num: 10, timestamp: expect.any(Number) },
    });
    const toTail = frames(await (await readSession(s, "?seq_num=4&wait=0")).done);
    expect(toTail.flatMap((f) => decodeReadBatch(f.payload).records.map((x) => x.seqNum))).toEqual([4, 5, 6, 7, 8, 9]);
  });

  it("with wait=2 and no traffic: a heartbeat, then a clean end after about 2 s (47)", async () => {
    const s = await newStream("idle", 1);
    const t0 = Date.now();
    const got = frames(await (await readSession(s, "?seq_num=1&wait=2")).done);
    const elapsed = Date.now() - t0;
    expect(got.map((f) => decodeReadBatch(f.payload))).toEqual([
      { records: [], tail: expect.objectContaining({ seqNum: 1 }) },
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(1900);
  });

  it("answers a session request for a missing stream with a plain 404 (48)", async () => {
    const r = await readSession("missing", "?seq_num=0");
    expect(r.status).toBe(404);
    expect(JSON.parse((await r.done).toString())).toMatchObject({ code: "stream_not_found" });
  });

  describe("SSE", () => {
    const sse = (stream: string, q: string, extra: Record<string, string> = {}) =>
      rawExchange(lite.url, protocol, {
        method: "GET",
        path: path(stream, q),
        headers: headers({ accept: "text/event-stream", ...extra }),
      });
    const events = (text: string) =>
      text
        .split("\n\n")
        .filter(Boolean)
        .map((e) =>
          Object.fromEntries(e.split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)])),
        );

    it("sends one batch with id seq,count,bytes, then [DONE] (50, 54)", async () => {
      const s = await newStream("sse", 5);
      const r = await sse(s, "?seq_num=0&count=2", { "svc-format": "base64" });
      expect(r.headers["content-type"]).toBe("text/event-stream");
      const evs = events((await r.done).toString());
      expect(evs[0]).toMatchObject({ event: "batch", id: "1,2,20" });
      expect(JSON.parse(evs[0]!.data!).records.map((x: { body: string }) => x.body)).toEqual(["cjA=", "cjE="]);
      expect(evs[1]).toEqual({ data: "[DONE]" });
    });

    it("pings while following, with a timestamp and the tail (51)", async () => {
      const s = await newStream("sse-ping", 1);
      const r = await sse(s, "?seq_num=1");
      await r.waitFor(10);
      r.close();
      const ping = events(r.received().toString())[0]!;
      expect(ping.event).toBe("ping");
      const data = JSON.parse(ping.data!);
      expect(Math.abs(data.timestamp - Date.now())).toBeLessThan(10_000);
      expect(data.tail.seq_num).toBe(1);
    });

    it("resumes after Last-Event-ID with the limits reduced (52), rejects a malformed one, 416 at the tail (53)", async () => {
      const s = await newStream("sse-resume", 5);
      const evs = events((await (await sse(s, "?seq_num=0&count=4", { "last-event-id": "1,2,20" })).done).toString());
      expect(evs[0]!.id).toBe("3,4,40");
      expect(JSON.parse(evs[0]!.data!).records.map((x: { seq_num: number }) => x.seq_num)).toEqual([2, 3]);
      const bad = await sse(s, "?seq_num=0", { "last-event-id": "1;2" });
      expect(bad.status).toBe(400);
      expect(JSON.parse((await bad.done).toString())).toMatchObject({ code: "bad_header" });
      expect((await sse(s, "?seq_num=5&count=1")).status).toBe(416);
    });
  });
});
