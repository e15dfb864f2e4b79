import { describe, expect, it } from "vitest";
import { readQuery } from "../../../src/client/read-resume.js";
import { readSession } from "../../../src/client/read-session.js";
import { clientError } from "../../../src/errors.js";
import type { ReadEvent, SequencedRecord } from "../../../src/types.js";
import { FakeExchange, pos } from "../../helpers/fake-exchange.js";

const enc = new TextEncoder();
const recs = (from: number, n: number): SequencedRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    seqNum: from + i,
    timestamp: 1000,
    headers: [],
    body: enc.encode(`r${from + i}`),
  }));

function opener(...exchanges: (FakeExchange | Error)[]) {
  const queries: string[] = [];
  const open = async (req: { query?: string }) => {
    queries.push(req.query ?? "");
    const next = exchanges.shift();
    if (!next) throw new Error("no more exchanges scripted");
    if (next instanceof Error) throw next;
    return next.opened();
  };
  return { open, queries };
}

async function collect(it: AsyncIterable<ReadEvent>): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const seqs = (events: ReadEvent[]) => events.flatMap((e) => (e.type === "batch" ? e.records.map((r) => r.seqNum) : []));

describe("readQuery", () => {
  it("starts where asked, then resumes after the last record with reduced limits", () => {
    const p = { nextSeq: undefined, count: 0, bytes: 0, idleSince: undefined };
    expect(readQuery({ tailOffset: 5 }, { count: 10, clamp: true }, p)).toBe("tail_offset=5&count=10&clamp=true");
    const resumed = { nextSeq: 42, count: 4, bytes: 100, idleSince: 1_000 };
    expect(readQuery({ timestamp: 7 }, { count: 10, bytes: 1000, until: 99, wait: 30 }, resumed, 11_500)).toBe(
      "seq_num=42&count=6&bytes=900&until=99&wait=20",
    );
  });
});

describe("readSession", () => {
  it("resumes after a cut at the next sequence number, without duplicates or gaps", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange();
    const { open, queries } = opener(first, second);
    const events = collect(readSession(open, { start: { seqNum: 0 }, limits: { count: 10 } }));
    first.batch({ records: recs(0, 4) });
    first.cut();
    second.batch({ records: recs(4, 6) });
    second.finish();
    expect(seqs(await events)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(queries).toEqual(["seq_num=0&count=10", "seq_num=4&count=6"]);
  });

  it("resumes from a heartbeat's tail when no record arrived, and reconnects on advice", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange();
    const { open, queries } = opener(first, second);
    const events = collect(readSession(open, {}));
    first.batch({ records: [], tail: pos(17) }, true);
    second.batch({ records: recs(17, 1), tail: pos(18) });
    second.finish();
    const got = await events;
    expect(got.map((e) => e.type)).toEqual(["heartbeat", "batch"]);
    expect(queries[1]).toBe("seq_num=17");
  });

  it("treats silence as a dead connection", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange();
    const { open, queries } = opener(first, second);
    const events = collect(readSession(open, { start: { seqNum: 0 }, heartbeatTimeoutMs: 50 }));
    first.batch({ records: recs(0, 2) });
    while (!first.closed) await new Promise((r) => setTimeout(r, 5)); // closed for silence
    second.batch({ records: recs(2, 1) });
    second.finish();
    expect(seqs(await events)).toEqual([0, 1, 2]);
    expect(first.closed).toBe(true);
    expect(queries[1]).toBe("seq_num=2");
  });

  it("fails on a non-retryable terminal error, and on a repeated record", async () => {
    const ex = new FakeExchange();
    const events = collect(readSession(opener(ex).open, { start: { seqNum: 0 } }));
    ex.terminal(409, { code: "stream_deletion_pending", message: "deleting" });
    await expect(events).rejects.toMatchObject({ code: "stream_deletion_pending" });

    const a = new FakeExchange();
    const dup = collect(readSession(opener(a).open, { start: { seqNum: 0 } }));
    a.batch({ records: recs(0, 3) });
    a.batch({ records: recs(2, 1) });
    await expect(dup).rejects.toMatchObject({ code: "protocol" });
  });

  it("ends a resumed bounded read that is already at the tail (416) quietly", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange(416, JSON.stringify({ tail: { seq_num: 3, timestamp: 5 } }));
    const events = collect(readSession(opener(first, second).open, { start: { seqNum: 0 }, limits: { count: 100 } }));
    first.batch({ records: recs(0, 3) });
    first.cut();
    expect(seqs(await events)).toEqual([0, 1, 2]);
  });

  it("a follow read outlives an outage: reports it once, resumes where it stopped", async () => {
    const first = new FakeExchange();
    const back = new FakeExchange();
    const refused = () => clientError("connect_failed", "cannot connect (ECONNREFUSED)");
    const { open, queries } = opener(first, refused(), refused(), refused(), back);
    const outages: string[] = [];
    const recovered: (number | undefined)[] = [];
    const events = collect(
      readSession(open, {
        start: { seqNum: 0 },
        retries: 0,
        onOutage: (e) => outages.push(e.code),
        onRecovered: (n) => recovered.push(n),
      }),
    );
    first.batch({ records: recs(0, 2), tail: pos(2) });
    first.cut();
    while (queries.length < 5) await new Promise((r) => setTimeout(r, 5));
    back.batch({ records: recs(2, 1), tail: pos(3) });
    back.finish();
    expect(seqs(await events)).toEqual([0, 1, 2]);
    expect(outages).toEqual(["connect_failed"]);
    expect(recovered).toEqual([2]);
    expect(queries.slice(1)).toEqual(["seq_num=2", "seq_num=2", "seq_num=2", "seq_num=2"]);
  });

  it("a bounded read gives up after --retries failures without progress; a follow read that never connected too", async () => {
    const refused = () => clientError("connect_failed", "cannot connect (ECONNREFUSED)");
    const bounded = collect(
      readSession(opener(refused(), refused()).open, { start: { seqNum: 0 }, limits: { count: 5 }, retries: 1 }),
    );
    await expect(bounded).rejects.toMatchObject({ code: "connect_failed" });
    const never = collect(readSession(opener(refused()).open, { start: { seqNum: 0 }, retries: 0 }));
    await expect(never).rejects.toMatchObject({ code: "connect_failed" });
  });
});
