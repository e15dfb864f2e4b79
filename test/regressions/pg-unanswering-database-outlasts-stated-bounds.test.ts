/**
 * Bug: when PostgreSQL stopped answering (a partition, a frozen host: no reset, no FIN), a
 * lite node held requests far longer than the bounds it stated. With `--storage-timeout 3s`
 * an append took 14.0 s to fail and a check-tail 14.9 s, where one 5 s read was promised; with
 * the defaults, reads took 10 s. Each connection a request needed was first connected with a
 * fixed 10 s timeout and only then given its statement's timeout (the two added up), and
 * requests queued behind hung ones (the pool's free connections, a stream's write queue, the
 * metadata lock) and then started their own wait.
 *
 * Reproduced here by cutting one node off from the database with its proxy (bytes dropped
 * both ways, sockets left open), then sending every kind of request at once, again while the
 * first ones still hang, and again once they failed. Expected: every database wait has one
 * deadline (connect and statement together): a write (append, stream creation) fails within
 * the storage timeout D, a read (check-tail, read, listing) within R = min(5 s, D), queued
 * or not; after the first failures the node answers 503 at once; once the database answers
 * again appends succeed. Then the same with the default timeouts (D = 10 s, R = 5 s).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { append, codeOf, PgCluster, type PgNode, show, sleep } from "../helpers/pg-cluster.js";

/** What the machine's load may add to a bound (several test runs share two cores). */
const SLACK_MS = 1_500;
const BASIN = `unanswering-${process.pid}`;

let cluster: PgCluster;

beforeAll(async () => {
  cluster = await PgCluster.create();
}, 60_000);

afterAll(async () => {
  await cluster?.close();
}, 60_000);

type Kind = "write" | "read";

interface Outcome {
  what: string;
  kind: Kind;
  wave: number;
  ms: number;
  status: number;
  code: string | undefined;
}

/** Every kind of request once (appends three times to one stream: they queue there). */
function wave(n: PgNode, basin: string, k: number): Promise<Outcome>[] {
  const c = n.client;
  const timed = async (what: string, kind: Kind, call: () => ReturnType<typeof c.call>): Promise<Outcome> => {
    const t0 = performance.now();
    const r = await call();
    return { what, kind, wave: k, ms: performance.now() - t0, status: r.status, code: codeOf(r) };
  };
  const record = (i: number) => ({ records: [{ body: `w${k}-${i}` }] });
  return [
    ...[0, 1, 2].map((i) =>
      timed(`append s1 #${i}`, "write", () => c.call("POST", "/v1/streams/s1/records", { basin, json: record(i) })),
    ),
    timed("append s2", "write", () => c.call("POST", "/v1/streams/s2/records", { basin, json: record(9) })),
    timed("create stream", "write", () =>
      c.call("POST", "/v1/streams", { basin, json: { stream: `new-${k}-${Math.random().toString(36).slice(2)}` } }),
    ),
    ...[0, 1].map((i) =>
      timed(`check-tail #${i}`, "read", () => c.call("GET", "/v1/streams/s1/records/tail", { basin })),
    ),
    timed("read at the tail", "read", () =>
      c.call("GET", "/v1/streams/s1/records", { basin, query: { seq_num: 1, count: 10 } }),
    ),
    timed("list streams", "read", () => c.call("GET", "/v1/streams", { basin })),
  ];
}

/** Cuts `n` off, sends three waves (at once, 1.5 s later, once the first failed), heals, and checks the bounds. */
async function outage(n: PgNode, basin: string, bounds: Record<Kind, number>, label: string): Promise<void> {
  for (const s of ["s1", "s2"]) {
    const r = await n.client.call("POST", "/v1/streams", { basin, json: { stream: s } });
    expect(r.status, show(r)).toBe(201);
    expect((await append(n.client, basin, s, [{ body: "before" }])).status).toBe(200);
  }
  expect((await n.client.call("GET", "/v1/streams/s1/records/tail", { basin })).status).toBe(200);

  n.proxy!.partition();
  const first = wave(n, basin, 1);
  await sleep(1_500);
  const second = wave(n, basin, 2);
  const firstDone = await Promise.all(first);
  const third = wave(n, basin, 3);
  const all = [...firstDone, ...(await Promise.all(second)), ...(await Promise.all(third))];
  n.proxy!.heal();

  console.log(
    `${label}: ${all.map((o) => `w${o.wave} ${o.what} ${o.status}${o.code ? ` ${o.code}` : ""} in ${(o.ms / 1000).toFixed(1)} s`).join("; ")}`,
  );
  for (const o of all) {
    expect(o.status, `${label}: w${o.wave} ${o.what} answered ${o.status} while the database was cut off`).not.toBe(
      200,
    );
    expect(
      o.ms,
      `${label}: w${o.wave} ${o.what} took ${o.ms.toFixed(0)} ms (bound ${bounds[o.kind]} ms for a ${o.kind})`,
    ).toBeLessThanOrEqual(bounds[o.kind] + SLACK_MS);
  }

  // The database answers again: appends succeed (the node re-makes its connections).
  const deadline = Date.now() + 30_000;
  let last = "";
  for (;;) {
    const r = await n.client.call("POST", "/v1/streams/s1/records", { basin, json: { records: [{ body: "after" }] } });
    if (r.status === 200) break;
    last = show(r);
    expect(Date.now(), `no append succeeded within 30 s of the database answering again: ${last}`).toBeLessThan(
      deadline,
    );
    await sleep(250);
  }
}

describe("a node whose database stops answering", () => {
  it("with --storage-timeout 3s: writes fail within 3 s, reads within 3 s, queued or not", async () => {
    const n = await cluster.node({ delayMs: 0, args: ["--storage-timeout", "3s"] });
    const basin = `${BASIN}-3s`;
    expect((await n.client.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    await outage(n, basin, { write: 3_000, read: 3_000 }, "--storage-timeout 3s");
  }, 120_000);

  it("with the defaults: writes fail within 10 s, reads within 5 s", async () => {
    const n = await cluster.node({ delayMs: 0 });
    const basin = `${BASIN}-default`;
    expect((await n.client.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    await outage(n, basin, { write: 10_000, read: 5_000 }, "defaults");
  }, 120_000);
});
