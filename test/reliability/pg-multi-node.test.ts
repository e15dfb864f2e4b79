/**
 * Issue 14: three svc lite nodes on one PostgreSQL database. Six writers spread over the
 * nodes append to ONE stream (two append sessions, two unconditioned unary writers, two
 * unary writers with match_seq_num); three readers follow it through different nodes; in the
 * middle of every cycle one node is killed with SIGKILL, its writers move to a survivor, and
 * it is restarted after the cycle. The final stream is checked against what clients saw:
 *
 *   - seq nums contiguous from 0, no gap; no record twice; no record nobody sent;
 *   - every acknowledged batch at exactly its acked range, in order; unacknowledged batches
 *     all-or-nothing; each writer's acked batches in the order they were acked;
 *   - every reader's view (through any node, the killed one included) a prefix of the stream
 *     from where it started, and readers through other nodes than the writer's saw records live.
 *
 * Cycles: 2 in the CI tier, 10 with RELIABILITY=extended (PG_MULTI_CYCLES overrides).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient, type StreamClient } from "../../src/client/index.js";
import type { SvcError } from "../../src/errors.js";
import { startLite, type Lite } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";
import { tierCount } from "../helpers/tier.js";

const CYCLES = tierCount(2, 10, "PG_MULTI_CYCLES");
const BASIN = `multi-${process.pid}`;
const enc = new TextEncoder();
const dec = new TextDecoder();

interface Attempt { writer: number; bodies: string[]; outcome?: "ok" | "fail" | "unknown"; start?: number; end?: number; ackOrder?: number }

let db: Awaited<ReturnType<typeof freshDatabase>>;
const nodes: Lite[] = [];
const alive = [true, true, true];
const attempts: Attempt[] = [];
let acks = 0;

const clients: SvcClient[] = [];

function stream(node: number): StreamClient {
  const n = nodes[node]!;
  const client = new SvcClient({ accountEndpoint: n.url, basinEndpoint: n.url, accessToken: n.token, retries: 0, timeoutMs: 10_000 });
  clients.push(client); // each owns its connections: closed after the suite
  return client.basin(BASIN).stream("s");
}

/** The writer's node, or the next one alive. */
function nodeFor(writer: number): number {
  for (let k = 0; k < 3; k++) if (alive[(writer + k) % 3]) return (writer + k) % 3;
  throw new Error("no node alive");
}

function attempt(writer: number, tag: string): Attempt {
  const a: Attempt = { writer, bodies: Array.from({ length: 1 + (attempts.length % 7) }, (_, i) => `w${writer}|${tag}|${attempts.length}|${i}`) };
  attempts.push(a);
  return a;
}

function settle(a: Attempt, p: Promise<{ start: { seqNum: number }; end: { seqNum: number } }>): Promise<boolean> {
  return p.then(
    (ack) => { Object.assign(a, { outcome: "ok", start: ack.start.seqNum, end: ack.end.seqNum, ackOrder: acks++ }); return true; },
    (e: SvcError) => { a.outcome = e.sideEffects === false ? "fail" : "unknown"; return false; },
  );
}

const input = (a: Attempt, matchSeqNum?: number) => ({ records: a.bodies.map((b) => ({ headers: [], body: enc.encode(b) })), ...(matchSeqNum === undefined ? {} : { matchSeqNum }) });

async function unaryWriter(w: number, withMatch: boolean, stop: () => boolean): Promise<void> {
  let expected: number | undefined;
  while (!stop()) {
    const s = stream(nodeFor(w));
    if (withMatch && expected === undefined) expected = await s.checkTail().then((t) => t.seqNum, () => undefined);
    if (withMatch && expected === undefined) continue;
    const a = attempt(w, withMatch ? "m" : "u");
    const ok = await settle(a, s.append(input(a, withMatch ? expected : undefined)));
    expected = ok ? a.end : undefined;
  }
}

async function sessionWriter(w: number, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const session = await stream(nodeFor(w)).appendSession({ ackTimeoutMs: 5_000, reconnectBudgetMs: 0 });
    const pending: Promise<boolean>[] = [];
    let failed = false;
    for (let i = 0; i < 200 && !stop() && !failed; i++) {
      const a = attempt(w, "s");
      pending.push(settle(a, session.submit(input(a))).then((ok) => { if (!ok) failed = true; return ok; }));
      if (pending.length % 8 === 0) await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 20))]);
    }
    await Promise.all(pending);
    await session.close().catch(() => session.abort());
  }
}

interface View { node: number; from: number; seen: { seq: number; body: string }[] }

async function reader(node: number, from: number, signal: AbortSignal, views: View[]): Promise<void> {
  const view: View = { node, from, seen: [] };
  views.push(view);
  try {
    for await (const ev of stream(node).readSession({ seqNum: from }, {}, { signal, retries: 1, follow: false, heartbeatTimeoutMs: 5_000 })) {
      if (ev.type === "batch") for (const r of ev.records) view.seen.push({ seq: r.seqNum, body: dec.decode(r.body) });
    }
  } catch {
    // the node died, or the read was stopped: the view so far is what is checked
  }
}

async function readAll(node: number): Promise<{ seq: number; body: string }[]> {
  const s = stream(node);
  const out: { seq: number; body: string }[] = [];
  const tail = (await s.checkTail()).seqNum;
  while (out.length < tail) {
    const batch = await s.read({ seqNum: out.length }, { count: 1000 });
    for (const r of batch.records) out.push({ seq: r.seqNum, body: dec.decode(r.body) });
  }
  return out;
}

beforeAll(async () => {
  db = await freshDatabase();
  nodes.push(await startLite({ postgres: db.url }));
  // Started together: the migrations run once, under the advisory lock.
  nodes.push(...await Promise.all([startLite({ postgres: db.url }), startLite({ postgres: db.url })]));
  await stream(0).checkTail().catch(() => undefined);
  const c = new SvcClient({ accountEndpoint: nodes[0]!.url, basinEndpoint: nodes[0]!.url, accessToken: nodes[0]!.token });
  await c.basins.create(BASIN);
  await c.basin(BASIN).streams.create("s");
  await c.close();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  for (const n of nodes) await n.kill9().catch(() => {});
  await db?.drop();
});

describe("three lite nodes on one PostgreSQL", () => {
  it("share one root token", () => {
    expect(new Set(nodes.map((n) => n.token)).size).toBe(1);
  });

  it(`${CYCLES} cycles of 6 writers, 3 readers and a kill -9: no acked record lost, duplicated or reordered`, async () => {
    const views: View[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const victim = cycle % 3;
      const from = (await stream((victim + 1) % 3).checkTail()).seqNum;
      let stopped = false;
      const stop = () => stopped;
      const abort = new AbortController();
      const readers = [0, 1, 2].map((n) => reader(n, from, abort.signal, views));
      const writers = [
        sessionWriter(0, stop), sessionWriter(1, stop),
        unaryWriter(2, false, stop), unaryWriter(3, false, stop),
        unaryWriter(4, true, stop), unaryWriter(5, true, stop),
      ];
      await new Promise((r) => setTimeout(r, 1_200));
      alive[victim] = false;
      await nodes[victim]!.kill9();
      await new Promise((r) => setTimeout(r, 1_200));
      stopped = true;
      await Promise.all(writers);
      await new Promise((r) => setTimeout(r, 1_500)); // readers catch up
      abort.abort();
      await Promise.all(readers);
      await nodes[victim]!.restart();
      alive[victim] = true;
    }

    const final = await readAll(1);
    // Contiguous from 0, each body once, every body one somebody sent.
    final.forEach((r, i) => expect(r.seq).toBe(i));
    const where = new Map<string, number>();
    for (const r of final) {
      expect(where.has(r.body), `record ${r.body} appears twice`).toBe(false);
      where.set(r.body, r.seq);
    }
    const sent = new Set(attempts.flatMap((a) => a.bodies));
    for (const r of final) expect(sent.has(r.body), `record ${r.body} was never sent`).toBe(true);

    const acked = attempts.filter((a) => a.outcome === "ok");
    for (const a of attempts) {
      const at = a.bodies.map((b) => where.get(b));
      if (a.outcome === "ok") {
        expect(at, `acked batch ${a.bodies[0]}`).toEqual(a.bodies.map((_, i) => a.start! + i));
        expect(a.end).toBe(a.start! + a.bodies.length);
      } else {
        const landed = at.filter((s) => s !== undefined).length;
        expect([0, a.bodies.length], `unacked batch ${a.bodies[0]} is all-or-nothing`).toContain(landed);
        if (a.outcome === "fail") expect(landed, `failed batch ${a.bodies[0]} must not land`).toBe(0);
      }
    }
    for (let w = 0; w < 6; w++) {
      const mine = acked.filter((a) => a.writer === w).sort((x, y) => x.ackOrder! - y.ackOrder!);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.start!).toBeGreaterThan(mine[i - 1]!.start!);
      expect(mine.length, `writer ${w} got acks`).toBeGreaterThan(0);
    }
    for (const v of views) {
      v.seen.forEach((r, i) => expect(r, `reader on node ${v.node} from ${v.from}, item ${i}`).toEqual(final[v.from + i]));
    }
    const live = views.filter((v) => v.seen.length > 0).length;
    expect(live).toBeGreaterThanOrEqual(2 * CYCLES);
    const conflicts = attempts.filter((a) => a.outcome === "fail").length;
    const unknown = attempts.filter((a) => a.outcome === "unknown").length;
    console.log(`pg multi-node: ${CYCLES} cycles, ${final.length} records, ${acked.length} acked batches, ${conflicts} refused (conflict/412), ${unknown} unknown, reader views ${views.map((v) => v.seen.length).join(",")}`);
  }, 60_000 + CYCLES * 15_000);
});
