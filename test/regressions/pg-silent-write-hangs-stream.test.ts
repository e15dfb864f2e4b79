/**
 * Bug: a svc lite node on PostgreSQL waited forever for a write the database never answered.
 * The write pool had no timeout, so when the connection went silent (a network partition, a
 * frozen database host: no reset, no FIN) an append's statement never settled: its ack never
 * came, the stream's write queue stayed busy, and every later append to that stream on the node
 * hung behind it until the process was restarted.
 *
 * Now every write statement is bounded by `--storage-timeout` (server-side statement_timeout,
 * and a client-side read timeout that drops the silent connection): the append fails with a
 * retryable 5xx whose outcome the client must treat as unknown, and once the database answers
 * again appends to the same stream succeed, with nothing duplicated or lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { SvcError } from "../../src/errors.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { type Lite, startLite } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
let proxy: FaultProxy | undefined;
let lite: Lite | undefined;
let client: SvcClient | undefined;

beforeAll(async () => {
  db = await freshDatabase();
  const url = new URL(db.url);
  proxy = await startFaultProxy(Number(url.port));
  url.port = String(new URL(proxy.url).port);
  lite = await startLite({ postgres: url.toString(), args: ["--storage-timeout", "2s"] });
  client = new SvcClient({
    accountEndpoint: lite.url,
    basinEndpoint: lite.url,
    accessToken: lite.token,
    retries: 0,
    timeoutMs: 30_000,
  });
  await client.basins.create("pg-timeout");
  await client.basin("pg-timeout").streams.create("s");
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await lite?.stop();
  await proxy?.close();
  await db?.drop();
});

describe("lite on PostgreSQL when the database stops answering", () => {
  it("fails the append within the storage timeout, and the stream takes appends again afterwards", async () => {
    const s = client!.basin("pg-timeout").stream("s");
    const one = (text: string) => ({ records: [{ headers: [], body: enc.encode(text) }] });
    expect((await s.append(one("before"))).end.seqNum).toBe(1);
    // A session: its stream was looked up when it started, so what follows touches only the
    // write pool (a unary append would first re-read the stream through the read connection,
    // which has its own bound).
    const session = await s.appender({ ackTimeoutMs: 60_000 });
    expect((await session.append(one("session"))).end.seqNum).toBe(2);
    // Its announcement (a NOTIFY through the pool) done, the next statement goes out on an
    // established pool connection: the case with no bound at all before the fix.
    await new Promise((r) => setTimeout(r, 300));

    proxy!.blackHole();
    const t0 = Date.now();
    const outcome = await Promise.race([
      session.append(one("in doubt")).then(
        () => "acked",
        (e: unknown) => e,
      ),
      new Promise((r) => setTimeout(() => r("no answer in 20 s"), 20_000)),
    ]);
    const waited = Date.now() - t0;
    proxy!.heal();
    session.abort();
    expect(outcome instanceof SvcError, `the append ended with ${String(outcome)}`).toBe(true);
    if (!(outcome instanceof SvcError)) return;
    expect(outcome.status ?? 0).toBeGreaterThanOrEqual(500);
    expect(waited, "bounded by --storage-timeout 2s, not by the client's ack timeout").toBeLessThan(10_000);

    // The database answers again: the same stream takes appends (the node reloads its view of
    // the tail). Stored: "before", "session", maybe "in doubt", maybe attempts that failed
    // with an unknown outcome, and the acked one last.
    let acked: { text: string; end: number } | undefined;
    for (let i = 0; i < 60 && !acked; i++) {
      const text = `after ${i}`;
      acked = await s.append(one(text)).then(
        (a) => ({ text, end: a.end.seqNum }),
        async () => {
          await new Promise((r) => setTimeout(r, 250));
          return undefined;
        },
      );
    }
    expect(acked, "an append succeeds once the database answers").toBeDefined();
    const got = (await s.readBatch({ seqNum: 0 }, { count: 100 })).records.map((r) => dec.decode(r.body));
    expect(got.slice(0, 2)).toEqual(["before", "session"]);
    expect(got[got.length - 1]).toBe(acked!.text);
    expect(got.length).toBe(acked!.end);
    expect(new Set(got).size, `no record twice: ${JSON.stringify(got)}`).toBe(got.length);
    for (const t of got.slice(2, -1)) expect(t === "in doubt" || t.startsWith("after "), t).toBe(true);
  }, 90_000);
});
