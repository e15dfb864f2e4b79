/**
 * Bug (issue 43, item 5): the per-connection share of the in-flight append budget was shared by
 * every tenant on one HTTP/2 connection. Behind a multiplexing proxy (which docs/security.md
 * recommends), one tenant's append sessions that never read their acks filled the connection's
 * quarter, and every other tenant's session on that connection got no acks (2 acks in 60 s
 * while the attacker reopened sessions; ~50 ms on its own connection).
 *
 * Now the connection's share is kept per principal within the connection: one token's unread
 * sessions stall only that token's sessions. Here one connection carries four unread sessions of
 * one token and then a session of another token, which must get its acks; the budget is shrunk
 * to 8 MiB (SVC_LITE_APPEND_BUDGET_BYTES), on lmdb and on PostgreSQL.
 */
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame } from "../../src/wire/framing.js";
import { encodeAppendInput } from "../../src/wire/proto.js";
import { type Lite, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";
import { acksOn, appendSessionHeaders, unreadAppendSession } from "../helpers/raw-session.js";

const BUDGET = { SVC_LITE_APPEND_BUDGET_BYTES: String(8 << 20) };
const frame = encodeFrame(encodeAppendInput({ records: [{ headers: [], body: new Uint8Array(4096 - 8) }] }));

async function appender(lite: Lite, id: string, basin: string): Promise<string> {
  const r = await liteClient(lite).call("POST", "/v1/access-tokens", {
    json: { id, scope: { basins: { exact: basin }, streams: { prefix: "" }, ops: ["append"] } },
  });
  expect(r.status, r.text()).toBe(201);
  return r.json().access_token as string;
}

describe.each(["lmdb", "postgres"] as const)("tenants multiplexed on one connection, on %s", (storage) => {
  let lite: Lite;
  let drop: (() => Promise<void>) | undefined;
  let conn: http2.ClientHttp2Session | undefined;

  beforeAll(async () => {
    if (storage === "lmdb") lite = await startLite({ env: BUDGET });
    else {
      const db = await freshDatabase();
      drop = db.drop;
      lite = await startLite({ postgres: db.url, env: BUDGET });
    }
  });

  afterAll(async () => {
    conn?.destroy();
    await lite?.stop();
    await drop?.();
  });

  it("one token's sessions with unread acks leave another token's session on the connection its acks", async () => {
    const basin = uniqueBasin("mux");
    const r = await liteClient(lite).call("POST", "/v1/basins", {
      json: { basin, config: { create_stream_on_append: true } },
    });
    expect(r.status).toBe(201);
    const [hog, victim] = [await appender(lite, "hog", basin), await appender(lite, "victim", basin)];
    // As a proxy's connection: small stream windows (an unread stream stops soon), a large
    // connection window (the unread streams do not block the others).
    conn = http2.connect(lite.url, { settings: { initialWindowSize: 16 * 1024 } });
    conn.on("error", () => undefined);
    await new Promise<void>((resolve) => conn!.once("connect", () => resolve()));
    conn.setLocalWindowSize(64 << 20);
    for (let i = 0; i < 4; i++) await unreadAppendSession(conn, appendSessionHeaders(hog, basin, `hog${i}`), frame);
    const acks = await acksOn(conn, appendSessionHeaders(victim, basin, "mine"), [frame, frame, frame]);
    expect(acks).toEqual([1, 2, 3]);
  }, 60_000);
});
