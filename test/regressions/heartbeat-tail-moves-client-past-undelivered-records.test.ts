/**
 * Bug (issue 41, item 1, the client's half): svc's client moved a read's resume position to a
 * heartbeat's tail, `max(next, tail)`. A server's heartbeat may announce a tail above the last
 * record it delivered to this session (lite did: records another node appended that this node
 * had not yet delivered). When that heartbeat carried the reconnect flag (a node's SIGTERM) or
 * the connection died after it, a framed read resumed at the tail and silently skipped the
 * records in between; an SSE read resumed after its last batch's id (Last-Event-ID), was given
 * those records, and died with "the server repeated record N". An SSE read that had no batch
 * yet repeated its query, so a start by tail offset was judged again, past records appended
 * meanwhile.
 *
 * Now a heartbeat never moves a position the read has (last record + 1); its tail fixes the
 * position only before the read has one, and an SSE read with no batch yet resumes there.
 * Here a scripted h2c server plays the node that announces a tail above what it sent.
 */
import { createServer, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { ReadEvent, ReadLimits, ReadStart } from "../../src/types.js";
import { encodeFrame } from "../../src/wire/framing.js";
import { encodeReadBatch } from "../../src/wire/proto.js";

const TOKEN = "t0k3n-for-tests";
const TAIL = 10;
/** What the stream holds: records 0..TAIL-1, all with this timestamp. */
const TS = 1_700_000_000_000;

type Answer = (stream: ServerHttp2Stream, query: URLSearchParams, headers: IncomingHttpHeaders) => void;

let servers: Http2Server[] = [];
afterEach(() => {
  for (const s of servers) s.close();
  servers = [];
});

/** An h2c server answering the n-th read request with `answers[n]`; returns its URL and the queries it got. */
async function scripted(answers: Answer[]): Promise<{ url: string; asked: { query: string; lastEventId?: string }[] }> {
  const asked: { query: string; lastEventId?: string }[] = [];
  const server = createServer();
  server.on("stream", (stream, headers) => {
    stream.on("error", () => undefined);
    const u = new URL(String(headers[":path"]), "http://x");
    const lastEventId = headers["last-event-id"];
    asked.push({ query: u.search.slice(1), ...(typeof lastEventId === "string" ? { lastEventId } : {}) });
    const answer = answers[asked.length - 1];
    if (!answer) {
      stream.respond({ ":status": 500, "content-type": "application/json" });
      stream.end(JSON.stringify({ code: "other", message: "no more answers scripted" }));
      return;
    }
    answer(stream, u.searchParams, headers);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

const record = (seqNum: number) => ({ seqNum, timestamp: TS, headers: [], body: Buffer.from(`r${seqNum}`) });
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => record(from + i));

/** A framed read session: `frames` then the end of the body (framedThenCut: then a lost connection). */
const framed =
  (...frames: Uint8Array[]): Answer =>
  (stream) => {
    stream.respond({ ":status": 200, "content-type": "svc/proto" });
    for (const f of frames) stream.write(f);
    stream.end();
  };
const framedThenCut =
  (...frames: Uint8Array[]): Answer =>
  (stream) => {
    stream.respond({ ":status": 200, "content-type": "svc/proto" });
    // The connection dies (a stream's close() would end the body cleanly first).
    stream.write(Buffer.concat(frames), () => setTimeout(() => stream.session?.destroy(), 20));
  };
const batchFrame = (from: number, to: number, reconnect = false) =>
  encodeFrame(encodeReadBatch({ records: range(from, to) }), { reconnect });
const heartbeatFrame = (tail: number, reconnect: boolean) =>
  encodeFrame(encodeReadBatch({ records: [], tail: { seqNum: tail, timestamp: TS } }), { reconnect });
/** Serves a framed read of the rest of the stream from the query's seq_num (records only, then the end). */
const framedFromQuery: Answer = (stream, q) => framed(batchFrame(Number(q.get("seq_num") ?? 0), TAIL))(stream, q, {});

/** An SSE read: `events` (already formatted) then the end of the body. */
const sse =
  (...events: string[]): Answer =>
  (stream) => {
    stream.respond({ ":status": 200, "content-type": "text/event-stream" });
    for (const e of events) stream.write(e);
    stream.end();
  };
const b64 = (seqNum: number) => ({
  seq_num: seqNum,
  timestamp: TS,
  body: Buffer.from(`r${seqNum}`).toString("base64"),
});
const batchEvent = (from: number, to: number, count: number) =>
  `event: batch\nid: ${to - 1},${count},0\ndata: ${JSON.stringify({ records: range(from, to).map((r) => b64(r.seqNum)) })}\n\n`;
const pingEvent = (tail: number) =>
  `event: ping\ndata: ${JSON.stringify({ timestamp: Date.now(), tail: { seq_num: tail, timestamp: TS } })}\n\n`;
const drainingEvent = `event: error\ndata: ${JSON.stringify({ code: "server_draining", message: "shutting down" })}\n\n`;

async function readAll(
  url: string,
  start: ReadStart,
  limits: ReadLimits,
  transport: "session" | "sse",
): Promise<{ seqs: number[]; error?: string }> {
  const c = new SvcClient({ accountEndpoint: url, basinEndpoint: url, accessToken: TOKEN, retries: 2 });
  const seqs: number[] = [];
  try {
    const events: AsyncIterable<ReadEvent> = c.basin("heartbeat-basin").stream("s").read(start, limits, { transport });
    for await (const ev of events) if (ev.type === "batch") seqs.push(...ev.records.map((r) => r.seqNum));
    return { seqs };
  } catch (e) {
    return { seqs, error: (e as Error).message };
  } finally {
    await c.close();
  }
}

const all = range(0, TAIL).map((r) => r.seqNum);

describe("a heartbeat whose tail is above the last record delivered", () => {
  it("framed session: reconnect advice on such a heartbeat resumes after the last record, not at the tail", async () => {
    const { url, asked } = await scripted([framed(batchFrame(0, 3), heartbeatFrame(TAIL, true)), framedFromQuery]);
    const got = await readAll(url, { seqNum: 0 }, { count: TAIL }, "session");
    expect(got.error).toBeUndefined();
    expect(got.seqs).toEqual(all);
    expect(asked.map((a) => a.query)).toEqual([`seq_num=0&count=${TAIL}`, `seq_num=3&count=${TAIL - 3}`]);
  });

  it("framed session: a cut after such a heartbeat resumes after the last record", async () => {
    const { url, asked } = await scripted([
      framedThenCut(batchFrame(0, 4), heartbeatFrame(TAIL, false)),
      framedFromQuery,
    ]);
    const got = await readAll(url, { seqNum: 0 }, { count: TAIL }, "session");
    expect(got.error).toBeUndefined();
    expect(got.seqs).toEqual(all);
    expect(asked[1]!.query).toBe(`seq_num=4&count=${TAIL - 4}`);
  });

  it("SSE: a ping with such a tail, then server_draining: resumes after the last batch, no 'repeated record'", async () => {
    const { url, asked } = await scripted([
      sse(batchEvent(0, 3, 3), pingEvent(TAIL), drainingEvent),
      sse(batchEvent(3, TAIL, TAIL), "data: [DONE]\n\n"),
    ]);
    const got = await readAll(url, { seqNum: 0 }, { count: TAIL }, "sse");
    expect(got.error).toBeUndefined();
    expect(got.seqs).toEqual(all);
    expect(asked[1]!.lastEventId).toBe("2,3,0");
  });

  it("SSE with no batch yet: resumes where the first ping put the read, not at a tail offset judged again", async () => {
    // The ping says the read starts at 6 (the tail when it began); then 6..9 were appended.
    const { url, asked } = await scripted([
      sse(pingEvent(6), drainingEvent),
      (stream, q) => {
        // A query judged again (tail_offset=0) would start at the tail now, past 6..9.
        const from = q.has("seq_num") ? Number(q.get("seq_num")) : TAIL;
        sse(...(from < TAIL ? [batchEvent(from, TAIL, TAIL - from)] : []), "data: [DONE]\n\n")(stream, q, {});
      },
    ]);
    const got = await readAll(url, { tailOffset: 0 }, { count: 4 }, "sse");
    expect(got.error).toBeUndefined();
    expect(got.seqs).toEqual([6, 7, 8, 9]);
    expect(asked.map((a) => a.query)).toEqual(["tail_offset=0&count=4", "seq_num=6&count=4"]);
  });
});
