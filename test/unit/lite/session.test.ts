import { describe, expect, it } from "vitest";
import { SeqNumMismatchError } from "../../../src/errors.js";
import { type AppendPort, runAppendSession } from "../../../src/lite/session/append-session.js";
import { ByteBudget } from "../../../src/lite/session/byte-budget.js";
import { DrainSignal, type SessionIO } from "../../../src/lite/session/io.js";
import type { ReadSource } from "../../../src/lite/session/read-pump.js";
import { runReadSession } from "../../../src/lite/session/read-session.js";
import { parseLastEventId, runSseSession } from "../../../src/lite/session/sse.js";
import { LiveBatch } from "../../../src/lite/store/live-fanout.js";
import type { AppendAck, AppendInput, ReadEvent, StreamPosition } from "../../../src/types.js";
import { decodeTerminal, encodeFrame, FrameParser } from "../../../src/wire/framing.js";
import { decodeAppendAck, decodeReadBatch, encodeAppendInput, encodeReadBatch } from "../../../src/wire/proto.js";

const enc = new TextEncoder();

/** An in-memory session: the test writes request bytes and reads the frames written back. */
class MemoryIO implements SessionIO {
  readonly out: Uint8Array[] = [];
  ended = false;
  closed = false;
  private readonly queue: (Uint8Array | null)[] = [];
  private wake: (() => void) | undefined;
  private closers: (() => void)[] = [];
  chunks: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => this.iterator() };
  private async *iterator(): AsyncGenerator<Uint8Array> {
    for (;;) {
      while (this.queue.length === 0) await new Promise<void>((r) => (this.wake = r));
      const c = this.queue.shift()!;
      if (c === null) return;
      yield c;
    }
  }
  send(bytes: Uint8Array | null): void {
    this.queue.push(bytes);
    this.wake?.();
  }
  async write(b: Uint8Array): Promise<void> {
    this.out.push(b);
  }
  async writev(pieces: readonly Uint8Array[]): Promise<void> {
    for (const p of pieces) this.out.push(p);
  }
  writeNow(pieces: readonly Uint8Array[]): boolean {
    for (const p of pieces) this.out.push(p);
    return true;
  }
  async drained(): Promise<void> {}
  end(): void {
    this.ended = true;
  }
  aborted = false;
  abort(): void {
    this.aborted = true;
  }
  onClose(cb: () => void): () => void {
    this.closers.push(cb);
    return () => undefined;
  }
  frames() {
    const p = new FrameParser();
    for (const c of this.out) p.push(c);
    const frames = [];
    for (let f = p.next(); f; f = p.next()) frames.push(f);
    return frames;
  }
}

const pos = (s: number): StreamPosition => ({ seqNum: s, timestamp: 7 });
const frameOf = (input: AppendInput) => encodeFrame(encodeAppendInput(input));
const one = (body: string, extra: Partial<AppendInput> = {}): AppendInput => ({
  records: [{ headers: [], body: enc.encode(body) }],
  ...extra,
});

/** A stream that sequences synchronously and acks when the test says the batch is durable. */
function fakeStream() {
  let next = 0;
  const applied: string[] = [];
  const port: AppendPort = {
    submit(input) {
      if (input.matchSeqNum !== undefined && input.matchSeqNum !== next) {
        return { accepted: false, ack: Promise.reject(new SeqNumMismatchError(next)) };
      }
      const start = next;
      next += input.records.length;
      applied.push(...input.records.map((r) => new TextDecoder().decode(r.body)));
      const ack: AppendAck = { start: pos(start), end: pos(next), tail: pos(next) };
      return { accepted: true, ack: Promise.resolve(ack) };
    },
  };
  return { port, applied };
}

const opts = () => ({ compression: "none" as const, drain: new DrainSignal(), budget: new ByteBudget(1 << 20) });

describe("append session (server)", () => {
  it("acks pipelined inputs in order and ends cleanly on half-close", async () => {
    const io = new MemoryIO();
    const { port } = fakeStream();
    const done = runAppendSession(io, port, opts());
    io.send(frameOf(one("a")));
    io.send(frameOf(one("b")));
    io.send(frameOf(one("c")));
    io.send(null);
    await done;
    const frames = io.frames();
    expect(frames.map((f) => f.terminal)).toEqual([false, false, false]);
    expect(frames.map((f) => decodeAppendAck(f.payload).start.seqNum)).toEqual([0, 1, 2]);
    expect(io.ended).toBe(true);
  });

  it("poisons on the first failing input: earlier acks, one terminal, nothing later applied", async () => {
    const io = new MemoryIO();
    const { port, applied } = fakeStream();
    const done = runAppendSession(io, port, opts());
    io.send(frameOf(one("a")));
    io.send(frameOf(one("b", { matchSeqNum: 5 })));
    io.send(frameOf(one("c")));
    io.send(null);
    await done;
    const frames = io.frames();
    expect(frames.length).toBe(2);
    expect(decodeAppendAck(frames[0]!.payload).end.seqNum).toBe(1);
    expect(frames[1]!.terminal).toBe(true);
    expect(decodeTerminal(frames[1]!.payload)).toEqual({ status: 412, body: { seq_num_mismatch: 1 } });
    expect(applied).toEqual(["a"]);
  });

  it("answers broken frames, client terminal frames and empty batches with terminals", async () => {
    for (const [bytes, status, code] of [
      [Uint8Array.of(0, 0, 3, 0x60, 1, 2), 400, "bad_frame"],
      [Uint8Array.of(0, 0, 3, 0x80, 1, 2), 400, "bad_frame"],
      [encodeFrame(encodeAppendInput({ records: [] })), 422, "invalid"],
      [Uint8Array.of(0, 0, 3, 0x00, 0xff, 0xff), 400, "bad_frame"],
    ] as const) {
      const io = new MemoryIO();
      const { port, applied } = fakeStream();
      const done = runAppendSession(io, port, opts());
      io.send(frameOf(one("ok")));
      io.send(bytes);
      io.send(null);
      await done;
      const frames = io.frames();
      expect(frames.length).toBe(2);
      const t = decodeTerminal(frames[1]!.payload);
      expect([t.status, (t.body as { code: string }).code]).toEqual([status, code]);
      expect(applied).toEqual(["ok"]);
    }
  });

  it("on drain: stops reading, acks what it accepted with the reconnect flag, then terminal 503", async () => {
    const io = new MemoryIO();
    const { port, applied } = fakeStream();
    const o = opts();
    const done = runAppendSession(io, port, o);
    io.send(frameOf(one("a")));
    await new Promise((r) => setTimeout(r, 10));
    o.drain.start();
    io.send(frameOf(one("late")));
    await done;
    const frames = io.frames();
    expect(frames.length).toBe(2);
    expect(decodeTerminal(frames[1]!.payload)).toMatchObject({ status: 503, body: { code: "server_draining" } });
    expect(applied).toEqual(["a"]);
  });
});

/** A read that yields `events`, then follows forever (no live batch comes). */
function feedOf(events: ReadEvent[], tail = pos(3)): ReadSource & { closed: boolean } {
  const it = events[Symbol.iterator]();
  const feed = {
    closed: false,
    lastLiveAt: 0,
    taken: undefined,
    next: async () => it.next().value,
    follow: () => new Promise<never>(() => undefined),
    tail: () => tail,
    close() {
      feed.closed = true;
    },
  };
  return feed;
}

describe("read session (server)", () => {
  it("sends batches, an immediate heartbeat on following, periodic heartbeats, and stops on drain", async () => {
    const io = new MemoryIO();
    const rec = { seqNum: 2, timestamp: 7, headers: [], body: enc.encode("x") };
    // The second batch carries its records already encoded (as catch-up from stored batches
    // does): it goes out as a frame head and those bytes, and must decode the same.
    const stored = [
      { seqNum: 3, timestamp: 8, headers: [{ name: enc.encode("h"), value: enc.encode("v") }], body: enc.encode("yz") },
    ];
    const encoded = [encodeReadBatch({ records: stored })];
    const feed = feedOf([
      { type: "batch", records: [rec] },
      { type: "batch", records: stored, encoded },
      { type: "heartbeat", tail: pos(3) },
    ]);
    const o = { ...opts(), heartbeatMinMs: 10, heartbeatMaxMs: 20, drainGraceMs: 30 };
    const done = runReadSession(io, feed, o);
    // two batches, the first heartbeat and two periodic ones
    while (io.frames().length < 5) await new Promise((r) => setTimeout(r, 5));
    o.drain.start();
    await done;
    const frames = io.frames();
    const batches = frames.filter((f) => !f.terminal).map((f) => decodeReadBatch(f.payload));
    expect(batches[0]!.records.map((r) => r.seqNum)).toEqual([2]);
    expect(batches[0]!.tail).toBeUndefined();
    expect(
      batches[1]!.records.map((r) => [
        r.seqNum,
        r.timestamp,
        Buffer.from(r.body).toString(),
        Buffer.from(r.headers[0]!.value).toString(),
      ]),
    ).toEqual([[3, 8, "yz", "v"]]);
    batches.splice(1, 1);
    expect(batches.length).toBeGreaterThanOrEqual(4); // batch, first heartbeat, periodic ones, drain notice
    expect(batches.slice(1).every((b) => b.records.length === 0 && b.tail?.seqNum === 3)).toBe(true);
    expect(frames.at(-2)!.reconnect).toBe(true);
    expect(decodeTerminal(frames.at(-1)!.payload).status).toBe(503);
    expect(feed.closed).toBe(true);
  });
});

describe("a heartbeat's tail (server)", () => {
  /** Delivered records 0..2 (taken: 3), caught up at 3; the stream's tail is 9 (another node's records, not yet read here). */
  const behind = (): ReadSource => {
    const events: ReadEvent[] = [
      {
        type: "batch",
        records: [0, 1, 2].map((n) => ({ seqNum: n, timestamp: 7, headers: [], body: enc.encode("x") })),
      },
      { type: "heartbeat", tail: pos(3) },
    ];
    const it = events[Symbol.iterator]();
    let taken: StreamPosition | undefined;
    return {
      lastLiveAt: 0,
      get taken() {
        return taken;
      },
      next: async () => {
        const ev = it.next().value;
        if (ev?.type === "batch") taken = pos(3);
        return ev;
      },
      follow: () => new Promise<never>(() => undefined),
      tail: () => pos(9),
      close: () => undefined,
    };
  };

  it("framed: periodic heartbeats and the drain notice announce where the session stands, not a tail it has not sent", async () => {
    const io = new MemoryIO();
    const o = { ...opts(), heartbeatMinMs: 5, heartbeatMaxMs: 10, drainGraceMs: 20 };
    const done = runReadSession(io, behind(), o);
    while (io.frames().length < 4) await new Promise((r) => setTimeout(r, 5)); // batch, heartbeat, 2 periodic
    o.drain.start();
    await done;
    const beats = io
      .frames()
      .filter((f) => !f.terminal)
      .map((f) => ({ batch: decodeReadBatch(f.payload), reconnect: f.reconnect }))
      .filter((b) => b.batch.records.length === 0);
    expect(beats.length).toBeGreaterThanOrEqual(4);
    expect(beats.map((b) => b.batch.tail?.seqNum)).toEqual(beats.map(() => 3));
    expect(beats.at(-1)!.reconnect).toBe(true);
  });

  it("SSE: pings announce where the session stands", async () => {
    const io = new MemoryIO();
    const o = {
      format: "raw" as const,
      drain: new DrainSignal(),
      heartbeatMinMs: 5,
      heartbeatMaxMs: 10,
      drainGraceMs: 20,
    };
    const done = runSseSession(io, behind(), o);
    const pings = () => Buffer.concat(io.out).toString().split("event: ping").length - 1;
    while (pings() < 3) await new Promise((r) => setTimeout(r, 5));
    o.drain.start();
    await done;
    const tails = [
      ...Buffer.concat(io.out)
        .toString()
        .matchAll(/event: ping\ndata: (.*)\n/g),
    ].map((m) => JSON.parse(m[1]!).tail.seq_num);
    expect(tails.length).toBeGreaterThanOrEqual(4);
    expect(tails.every((t) => t === 3)).toBe(true);
  });
});

describe("SSE session", () => {
  it("numbers batch events cumulatively from Last-Event-ID and ends with [DONE]", async () => {
    const io = new MemoryIO();
    const recs = [0, 1].map((s) => ({ seqNum: 10 + s, timestamp: 7, headers: [], body: enc.encode("hello") }));
    const events: ReadEvent[] = [{ type: "batch", records: recs }];
    const it = events[Symbol.iterator]();
    const feed: ReadSource = {
      next: async () => it.next().value,
      follow: async () => "done",
      tail: () => pos(12),
      lastLiveAt: 0,
      taken: undefined,
      close: () => undefined,
    };
    await runSseSession(io, feed, { format: "base64", drain: new DrainSignal(), startCount: 2, startBytes: 26 });
    const text = Buffer.concat(io.out).toString();
    expect(text).toBe(
      'event: batch\nid: 11,4,52\ndata: {"records":[{"seq_num":10,"timestamp":7,"body":"aGVsbG8="},{"seq_num":11,"timestamp":7,"body":"aGVsbG8="}]}\n\n' +
        "data: [DONE]\n\n",
    );
  });

  it("writes live batches as this session's event and id lines and the data line every follower shares", async () => {
    const io = new MemoryIO();
    const live = (seq: number) =>
      new LiveBatch([{ seqNum: seq, timestamp: 7, headers: [], body: enc.encode("hi") }], pos(seq + 1));
    const batches = [live(5), live(6)];
    let asked = 0;
    const feed: ReadSource = {
      next: async () => (asked++ === 0 ? { type: "heartbeat", tail: pos(5) } : undefined),
      async follow(sink) {
        for (const b of batches) {
          b.setShape(sink.shape!.key, await sink.shape!.make(b));
          sink.deliver(b);
        }
        return "done";
      },
      tail: () => pos(7),
      lastLiveAt: 0,
      taken: undefined,
      close: () => undefined,
    };
    await runSseSession(io, feed, { format: "raw", drain: new DrainSignal(), startCount: 3, startBytes: 30 });
    const text = Buffer.concat(io.out).toString();
    expect(text.split("\n\n").filter((e) => e.startsWith("event: batch"))).toEqual([
      'event: batch\nid: 5,4,40\ndata: {"records":[{"seq_num":5,"timestamp":7,"body":"hi"}],"tail":{"seq_num":6,"timestamp":7}}',
      'event: batch\nid: 6,5,50\ndata: {"records":[{"seq_num":6,"timestamp":7,"body":"hi"}],"tail":{"seq_num":7,"timestamp":7}}',
    ]);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    // the data line is the batch's shape, the same bytes for every follower
    expect(Buffer.from(batches[0]!.shaped("sse:raw")!).toString()).toContain('"seq_num":5');
  });

  it("parses Last-Event-ID strictly", () => {
    expect(parseLastEventId("41,42,3360")).toEqual({ seqNum: 41, count: 42, bytes: 3360 });
    for (const bad of ["41,42", "a,b,c", "1, 2,3", "-1,2,3", "99999999999999999999,1,1"]) {
      expect(() => parseLastEventId(bad)).toThrow(expect.objectContaining({ code: "bad_header" }));
    }
  });
});
