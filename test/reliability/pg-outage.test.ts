/**
 * A svc lite node on PostgreSQL while its database goes away and comes back. The
 * suite starts its own PostgreSQL (the run's shared one must stay up for the other suites),
 * one lite node on it, two writers (an append session and unary appends) and a follow read
 * session, then:
 *
 *   1. kills every connection of the node's database with pg_terminate_backend (a failover,
 *      a restarted pooler): the node must carry on, at worst failing a few appends;
 *   2. shuts PostgreSQL down (fast shutdown) for a few seconds and starts it again on the same
 *      data: while it is down every append fails with a retryable 5xx JSON error (no ack) or,
 *      for a session whose several inputs were in a statement whose answer was lost, a cut
 *      connection (the client reports them of unknown outcome),
 *      the node keeps running and answering, and once the database is back appends succeed
 *      again and the reader resumes where it stopped.
 *
 * Everything is recorded as a history (test/helpers/history) and must pass the ordering
 * checker: no acked record lost, nothing a definite failure wrote, no gap or duplicate, the
 * reader's view the stream's own records in order.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { StreamClient } from "../../src/client/stream.js";
import { SvcError } from "../../src/errors.js";
import { keepArtifacts } from "../helpers/artifacts.js";
import {
  type AppendOp,
  historyLines,
  Recorder,
  recordKey,
  type SessionReadOp,
  verify,
} from "../helpers/history/index.js";
import { readFinal } from "../helpers/history/workload.js";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";
import { startPostgres } from "../helpers/postgres.js";

const BASIN = `outage-${process.pid}`;
const STREAM = "s";
const DOWN_MS = 4_000;
const enc = new TextEncoder();

let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
let lite: Lite | undefined;
const clients: SvcClient[] = [];

function client(): SvcClient {
  const c = new SvcClient({
    accountEndpoint: lite!.url,
    basinEndpoint: lite!.url,
    accessToken: lite!.token,
    retries: 0,
    timeoutMs: 10_000,
  });
  clients.push(c);
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query("CREATE DATABASE outage");
  await admin.end();
  lite = await startLite({ postgres: `postgres://postgres@127.0.0.1:${server.port}/outage` });
  const c = client();
  await c.basins.create(BASIN);
  await c.basin(BASIN).streams.create(STREAM);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await lite?.kill9().catch(() => undefined);
  await server?.stop();
});

describe("lite on PostgreSQL when the database goes away", () => {
  it("fails appends with a retryable 5xx and no ack while it is down, keeps running, and recovers", async () => {
    const rec = new Recorder({ suite: "pg-outage" });
    const errors: {
      at: number;
      via: string;
      code: string;
      status: number | undefined;
      retryable: boolean;
      message: string;
    }[] = [];
    let n = 0;
    const input = (w: number) => {
      const k = n++;
      return {
        records: Array.from({ length: 1 + (k % 5) }, (_, i) => ({ headers: [], body: enc.encode(`w${w}|${k}|${i}`) })),
      };
    };
    const noted = <T>(via: string, p: Promise<T>): Promise<T> =>
      p.catch((e: unknown) => {
        const err = e as SvcError;
        errors.push({
          at: now(),
          via,
          code: e instanceof SvcError ? err.code : String(e),
          status: err.status,
          retryable: err.retryable,
          message: err.message,
        });
        throw e;
      });

    let stopped = false;
    const unary = (async () => {
      const s: StreamClient = client().basin(BASIN).stream(STREAM);
      while (!stopped) {
        const inp = input(0);
        const ack = await rec.append(0, STREAM, "unary", inp, () => noted("unary", s.append(inp)));
        if (!ack) await sleep(100);
      }
    })();
    const session = (async () => {
      const s = client().basin(BASIN).stream(STREAM);
      while (!stopped) {
        const sess = await s.appender({ ackTimeoutMs: 10_000, reconnectBudgetMs: 0 });
        let failed = false;
        const pending: Promise<unknown>[] = [];
        while (!stopped && !failed) {
          const inp = input(1);
          pending.push(
            rec
              .append(1, STREAM, "session", inp, () => noted("session", sess.append(inp)))
              .then((ack) => {
                if (!ack) failed = true;
              }),
          );
          if (pending.length >= 4) await Promise.race([Promise.all(pending.splice(0, 2)), sleep(20)]);
          else await sleep(5);
        }
        await Promise.all(pending);
        await sess.close().catch(() => sess.abort());
        if (failed) await sleep(100);
      }
    })();
    const abort = new AbortController();
    let outages = 0;
    let recoveries = 0;
    const reading = rec.readSession(
      100,
      STREAM,
      0,
      Number.MAX_SAFE_INTEGER,
      client()
        .basin(BASIN)
        .stream(STREAM)
        .read(
          { seqNum: 0 },
          {},
          {
            signal: abort.signal,
            follow: true,
            heartbeatTimeoutMs: 20_000,
            onOutage: () => {
              outages++;
            },
            onRecovered: () => {
              recoveries++;
            },
          },
        ),
    );
    const acked = () => rec.ops.filter((o): o is AppendOp => o.kind === "append" && o.outcome === "ok").length;
    const delivered = () =>
      (rec.ops.find((o) => o.kind === "read-session") as SessionReadOp).events.reduce(
        (k, e) => k + ("records" in e ? e.records.length : 0),
        0,
      );

    await sleep(1_500);
    const beforeKill = acked();
    expect(beforeKill, "appends are acked before any fault").toBeGreaterThan(5);

    // 1. Every connection of the node's database is terminated, three times over a second.
    const admin = new pg.Client({ connectionString: server!.adminUrl });
    await admin.connect();
    let terminated = 0;
    const terminateStarted = now();
    for (let i = 0; i < 3; i++) {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = 'outage' AND pid <> pg_backend_pid()",
      );
      terminated += rows[0]!.n;
      await sleep(300);
    }
    await admin.end();
    expect(terminated).toBeGreaterThan(0);
    await sleep(1_500);
    const afterKill = acked();
    expect(afterKill, "appends are acked again after the connections were killed").toBeGreaterThan(beforeKill);

    // 2. PostgreSQL is shut down, and started again on the same data after DOWN_MS.
    const haltStarted = now();
    await server!.halt();
    const down = now();
    const deliveredAtHalt = delivered();
    await sleep(DOWN_MS / 2);
    // The node still runs and answers, quickly, with a JSON 5xx.
    const raw = liteClient(lite!);
    const t0 = performance.now();
    const reply = await raw.call("POST", `/v1/streams/${STREAM}/records`, {
      basin: BASIN,
      json: { records: [{ body: "during-outage" }] },
    });
    const answeredMs = performance.now() - t0;
    await raw.close();
    expect(reply.status, reply.text()).toBeGreaterThanOrEqual(500);
    expect(reply.json().code, reply.text()).toMatch(/^(unavailable|storage)$/);
    expect(answeredMs).toBeLessThan(3_000);
    await sleep(DOWN_MS / 2);
    const resumeStarted = now();
    await server!.resume();
    const up = now();

    // Appends succeed again, and the reader resumes.
    const deadline = Date.now() + 20_000;
    const ackedAtResume = acked();
    while (Date.now() < deadline && acked() < ackedAtResume + 10) await sleep(100);
    expect(acked(), "appends are acked again once the database is back").toBeGreaterThanOrEqual(ackedAtResume + 10);
    stopped = true;
    await Promise.all([unary, session]);
    const tail = (await client().basin(BASIN).stream(STREAM).checkTail()).seqNum;
    while (Date.now() < deadline + 10_000 && delivered() < tail) await sleep(100);
    abort.abort();
    await reading;
    expect(lite!.pid, "the node is the one started").toBeDefined();
    expect(process.kill(lite!.pid!, 0), "the node kept running").toBe(true);

    const finalStream = await readFinal(client().basin(BASIN).stream(STREAM), recordKey);
    const history = rec.history({ [STREAM]: finalStream });
    const appends = history.ops.filter((o): o is AppendOp => o.kind === "append");
    // No append invoked after the database was down and completed before it was back was acked.
    const ackedWhileDown = appends.filter((a) => a.outcome === "ok" && a.invoke > down && a.complete! < resumeStarted);
    expect(
      ackedWhileDown.map((a) => a.id),
      "acked while the database was down",
    ).toEqual([]);
    // Every failure during the outage: a retryable 5xx with a code.
    const during = errors.filter((e) => e.at > haltStarted && e.at < up);
    expect(during.length, "appends failed while the database was down").toBeGreaterThan(0);
    for (const e of errors) {
      // A session whose several inputs went to the database in one statement whose answer was
      // lost is cut off by the node (their outcome is unknown; a terminal frame would call the
      // later ones never applied): the client reports them "may or may not have been appended",
      // which it does not retry by itself. Everything else is a retryable failure.
      const unknownSession =
        e.via === "session" && e.status === undefined && /may or may not have been appended/.test(e.message);
      if (!unknownSession) expect(e.retryable, `${e.via}: ${e.code} ${e.status} ${e.message}`).toBe(true);
      if (e.status !== undefined) expect(e.status, `${e.via}: ${e.code} ${e.message}`).toBeGreaterThanOrEqual(500);
    }
    // The reader saw everything, in order, and went on after the outage.
    const view = (history.ops.find((o) => o.kind === "read-session") as SessionReadOp).events.flatMap((e) =>
      "records" in e ? e.records : [],
    );
    expect(view.length).toBe(finalStream.tail);
    expect(view).toEqual(finalStream.records);
    expect(view.length).toBeGreaterThan(deliveredAtHalt);

    const verdict = verify(history);
    if (!verdict.ok)
      keepArtifacts("pg-outage", process.pid, {
        "verdict.txt": verdict.summary,
        "history.jsonl": historyLines(history),
      });
    const codes = (from: number, to: number) => [
      ...new Set(errors.filter((e) => e.at >= from && e.at < to).map((e) => `${e.via}:${e.status ?? "-"}:${e.code}`)),
    ];
    const failures = (from: number, to: number) => errors.filter((e) => e.at >= from && e.at < to).length;
    console.log(
      `pg outage: ${terminated} connections terminated, database down ${((up - haltStarted) / 1e6).toFixed(1)} s; ` +
        `${verdict.direct.stats.acked} acked appends (${verdict.direct.stats.ackedRecords} records), ${appends.filter((a) => a.outcome === "fail").length} failed, ` +
        `${verdict.direct.stats.indefinite} indefinite; after the terminations ${failures(terminateStarted, haltStarted)} errors ${JSON.stringify(codes(terminateStarted, haltStarted))}, ` +
        `while down or coming back ${failures(haltStarted, Infinity)} errors ${JSON.stringify(codes(haltStarted, Infinity))}; during-outage unary reply ${reply.status} ${reply.text()} in ${answeredMs.toFixed(0)} ms; ` +
        `reader outages ${outages}, recoveries ${recoveries}, ${view.length} records delivered; checker ${verdict.ok ? "ok" : verdict.summary}`,
    );
    expect(verdict.summary).toBe("");
  }, 90_000);
});

/** CLOCK_MONOTONIC in µs, the recorder's clock. */
function now(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
