/**
 * Found by a second security review: one token allowed to append to one stream stalled every
 * other tenant's append sessions. Each session could hold an eighth of the shared in-flight
 * budget (released as its acks are written), and nothing limited sessions per token or per
 * connection: nine sessions that never read their acks (HTTP/2 window 0) held it all, and
 * another token's session in another basin got no ack for 10 s (55 ms before; unary appends
 * still worked); the attacker just reconnected after the idle close. Now one token's sessions
 * and one connection's sessions may each hold at most a quarter of the budget, and a session
 * whose acks stay unread for SVC_LITE_ACK_STALL_MS (30 s) is ended with terminal 408
 * `request_timeout` after its acks, giving back what it held. The budget is shrunk to 8 MiB
 * here (SVC_LITE_APPEND_BUDGET_BYTES), on lmdb and on PostgreSQL.
 */
import type { ClientHttp2Session } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeTerminal, encodeFrame, FrameParser } from "../../src/wire/framing.js";
import { decodeAppendAck, encodeAppendInput } from "../../src/wire/proto.js";
import { eventually, type Lite, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";
import { acksOf, appendSessionHeaders, unreadAppendSession, unreadingConnection } from "../helpers/raw-session.js";

const BUDGET = { SVC_LITE_APPEND_BUDGET_BYTES: String(8 << 20) };
// 4 KiB inputs: ~500 unread acks fill a stream's write buffer, then the session holds its share.
const frame = encodeFrame(encodeAppendInput({ records: [{ headers: [], body: new Uint8Array(4096 - 8) }] }));

interface Server {
  lite: Lite;
  drop?: () => Promise<void>;
}

async function start(storage: "lmdb" | "postgres", env: Record<string, string>): Promise<Server> {
  if (storage === "lmdb") return { lite: await startLite({ env }) };
  const db = await freshDatabase();
  return { lite: await startLite({ postgres: db.url, env }), drop: db.drop };
}

async function makeBasin(lite: Lite, prefix: string): Promise<string> {
  const basin = uniqueBasin(prefix);
  const r = await liteClient(lite).call("POST", "/v1/basins", {
    json: { basin, config: { create_stream_on_append: true } },
  });
  expect(r.status).toBe(201);
  return basin;
}

/** A token that may only append, in `basin`. */
async function appender(lite: Lite, id: string, basin: string): Promise<string> {
  const r = await liteClient(lite).call("POST", "/v1/access-tokens", {
    json: { id, scope: { basins: { exact: basin }, streams: { prefix: "" }, ops: ["append"] } },
  });
  expect(r.status, r.text()).toBe(201);
  return r.json().access_token as string;
}

describe.each(["lmdb", "postgres"] as const)("on %s", (storage) => {
  let server: Server;
  let lite: Lite;
  let victimBasin: string;
  let victim: string;
  const conns: ClientHttp2Session[] = [];

  beforeAll(async () => {
    server = await start(storage, BUDGET);
    lite = server.lite;
    victimBasin = await makeBasin(lite, "victim");
    victim = await appender(lite, "victim", victimBasin);
  });

  afterAll(async () => {
    for (const c of conns) c.destroy();
    await lite?.stop();
    await server?.drop?.();
  });

  it("nine sessions of one token that never read their acks leave another tenant's session its acks", async () => {
    const basin = await makeBasin(lite, "hog");
    const hog = await appender(lite, "hog", basin);
    await Promise.all(
      Array.from({ length: 9 }, (_, i) => {
        const conn = unreadingConnection(lite.url);
        conns.push(conn);
        return unreadAppendSession(conn, appendSessionHeaders(hog, basin, `s${i}`), frame);
      }),
    );
    const acks = await acksOf(lite.url, appendSessionHeaders(victim, victimBasin, "mine"), [frame, frame, frame]);
    expect(acks).toEqual([1, 2, 3]);
  }, 60_000);

  it("nine such sessions of nine tokens on one connection leave another connection its acks", async () => {
    const basin = await makeBasin(lite, "mux");
    const conn = unreadingConnection(lite.url);
    conns.push(conn);
    const tokens = await Promise.all(Array.from({ length: 9 }, (_, i) => appender(lite, `mux-${i}`, basin)));
    await Promise.all(tokens.map((t, i) => unreadAppendSession(conn, appendSessionHeaders(t, basin, `s${i}`), frame)));
    const acks = await acksOf(lite.url, appendSessionHeaders(victim, victimBasin, "again"), [frame, frame, frame]);
    expect(acks).toEqual([1, 2, 3]);
  }, 60_000);
});

describe.each(["lmdb", "postgres"] as const)("a session whose acks stay unread, on %s", (storage) => {
  let server: Server;

  afterAll(async () => {
    await server?.lite.stop();
    await server?.drop?.();
  });

  it("is ended after its acks with terminal 408 request_timeout, and gives back what it held", async () => {
    server = await start(storage, { ...BUDGET, SVC_LITE_ACK_STALL_MS: "3000" });
    const lite = server.lite;
    const basin = await makeBasin(lite, "stall");
    const token = await appender(lite, "staller", basin);
    const conn = unreadingConnection(lite.url);
    try {
      const { stream } = await unreadAppendSession(conn, appendSessionHeaders(token, basin, "s"), frame);
      const line = /append session on stream ".*"\/"s" ended: its client read no acks for 3 s/;
      await eventually(async () => line.test(lite.stderr()), 15_000, 20);
      // The client reads again: every ack of what the server read, then the terminal frame.
      const frames: { terminal: boolean; payload: Uint8Array }[] = [];
      const parser = new FrameParser();
      const ended = new Promise<void>((resolve) => {
        stream.on("data", (c: Buffer) => {
          parser.push(c);
          for (let f = parser.next(); f; f = parser.next()) frames.push(f);
        });
        // The answer ends (END_STREAM); the server then also resets the stream, best effort.
        stream.on("end", () => resolve());
        stream.on("close", () => resolve());
      });
      conn.settings({ initialWindowSize: 1 << 20 });
      stream.resume();
      await ended;
      const last = frames.at(-1)!;
      expect(last.terminal).toBe(true);
      expect(decodeTerminal(last.payload)).toMatchObject({ status: 408, body: { code: "request_timeout" } });
      const acks = frames.slice(0, -1).map((f) => decodeAppendAck(f.payload).end.seqNum);
      expect(acks.length).toBeGreaterThan(0);
      expect(acks).toEqual(acks.map((_, i) => i + 1)); // every input read, in order, none skipped
      // What it held is free again: the same token's next session is acknowledged.
      const next = await acksOf(lite.url, appendSessionHeaders(token, basin, "t"), [frame]);
      expect(next).toEqual([1]);
    } finally {
      conn.destroy();
    }
  }, 60_000);
});
