/**
 * The ordering checker itself (test/helpers/history): hand-written histories, each with one
 * anomaly, must be flagged by the check that names it; a clean history must pass. The live
 * suites (test/reliability/ordering, crash) rely on these checks.
 */
import { describe, expect, it } from "vitest";
import {
  type AppendOp,
  checkHistory,
  type History,
  type Observed,
  type Op,
  searchCheck,
  verify,
} from "../helpers/history/index.js";

let id = 0;
const app = (p: Partial<AppendOp> & { records: string[] }): AppendOp => ({
  kind: "append",
  via: "unary",
  client: 0,
  stream: "s",
  id: id++,
  invoke: 0,
  complete: 1,
  outcome: "ok",
  ...p,
});
const seqs = (from: number, keys: string[]) => keys.map((key, i) => ({ seq: from + i, key }));

function hist(ops: Op[], keys: string[], first = 0): History {
  return { meta: {}, ops, final: { s: { first, tail: first + keys.length, records: seqs(first, keys) } } };
}

/** a (t 0-10) → [0,2); b (t 20-30) → [2,3). */
function base(): Op[] {
  return [
    app({ records: ["a0", "a1"], invoke: 0, complete: 10, start: 0, end: 2 }),
    app({ records: ["b0"], invoke: 20, complete: 30, start: 2, end: 3 }),
  ];
}

const checks = (h: History) => new Set(checkHistory(h).violations.map((v) => v.check));

describe("ordering checker", () => {
  it("passes a clean history, reads and a session included", () => {
    const ops: Op[] = [
      ...base(),
      {
        kind: "read",
        client: 1,
        stream: "s",
        id: id++,
        invoke: 31,
        complete: 40,
        outcome: "ok",
        from: 1,
        limit: 10,
        records: seqs(1, ["a1", "b0"]),
        tail: 3,
      },
      { kind: "check-tail", client: 2, stream: "s", id: id++, invoke: 41, complete: 42, outcome: "ok", tail: 3 },
      {
        kind: "read-session",
        client: 3,
        stream: "s",
        id: id++,
        invoke: 5,
        complete: 50,
        outcome: "ok",
        from: 0,
        events: [{ records: seqs(0, ["a0", "a1"]), tail: 2 }, { heartbeat: 2 }, { records: seqs(2, ["b0"]), tail: 3 }],
      },
    ];
    const v = verify(hist(ops, ["a0", "a1", "b0"]));
    expect(v.summary).toBe("");
    expect(v.ok).toBe(true);
  });

  it("C1: an acked record lost, or acks overlapping", () => {
    expect(checks(hist(base(), ["a0", "a1"]))).toContain("C1");
    const ops = base();
    (ops[1] as AppendOp).start = 1;
    (ops[1] as AppendOp).end = 2;
    expect(checks(hist(ops, ["a0", "a1", "b0"]))).toContain("C1");
  });

  it("C2: a definitely failed append is stored", () => {
    const ops = [...base(), app({ records: ["c0"], invoke: 31, complete: 32, outcome: "fail", error: "invalid" })];
    expect(checks(hist(ops, ["a0", "a1", "b0", "c0"]))).toContain("C2");
  });

  it("C3: a duplicate, a phantom, a torn indefinite batch", () => {
    expect(checks(hist(base(), ["a0", "a1", "b0", "b0"]))).toContain("C3");
    expect(checks(hist(base(), ["a0", "a1", "b0", "zz"]))).toContain("C3");
    const ops = [...base(), app({ records: ["c0", "c1"], invoke: 31, outcome: "info", complete: 40 })];
    expect(checks(hist(ops, ["a0", "a1", "b0", "c0"]))).toContain("C3");
  });

  it("C4: a stale check-tail, and an append placed before a completed one", () => {
    const stale: Op = {
      kind: "check-tail",
      client: 1,
      stream: "s",
      id: id++,
      invoke: 31,
      complete: 32,
      outcome: "ok",
      tail: 2,
    };
    expect(checks(hist([...base(), stale], ["a0", "a1", "b0"]))).toContain("C4");
    const ops = [
      app({ records: ["a0"], invoke: 0, complete: 10, start: 1, end: 2 }),
      app({ records: ["b0"], invoke: 20, complete: 30, start: 0, end: 1 }),
    ];
    expect(checks(hist(ops, ["b0", "a0"]))).toContain("C4");
  });

  it("C5: match_seq_num ignored, and a 412 naming an impossible tail", () => {
    const ops = [...base(), app({ records: ["c0"], invoke: 31, complete: 32, matchSeqNum: 2, start: 3, end: 4 })];
    expect(checks(hist(ops, ["a0", "a1", "b0", "c0"]))).toContain("C5");
    const bad = [
      ...base(),
      app({
        records: ["c0"],
        invoke: 31,
        complete: 32,
        matchSeqNum: 0,
        outcome: "fail",
        error: "seq_num_mismatch",
        expectedSeqNum: 1,
      }),
    ];
    expect(checks(hist(bad, ["a0", "a1", "b0"]))).toContain("C5");
    expect(searchCheck(hist(bad, ["a0", "a1", "b0"])).result).toBe("fail");
  });

  it("C6: a fenced append accepted with a stale token", () => {
    const ops = [
      app({ records: ["a0", "fence:t1"], invoke: 0, complete: 10, start: 0, end: 2 }),
      app({ records: ["b0"], invoke: 20, complete: 30, start: 2, end: 3, fencingToken: "t0" }),
    ];
    expect(checks(hist(ops, ["a0", "fence:t1", "b0"]))).toContain("C6");
    expect(searchCheck(hist(ops, ["a0", "fence:t1", "b0"])).result).toBe("fail");
  });

  it("C7: a read session that skips a record or returns other bytes", () => {
    const skip: Op = {
      kind: "read-session",
      client: 3,
      stream: "s",
      id: id++,
      invoke: 31,
      complete: 50,
      outcome: "ok",
      from: 0,
      events: [
        {
          records: [
            { seq: 0, key: "a0" },
            { seq: 2, key: "b0" },
          ],
        },
      ],
    };
    expect(checks(hist([...base(), skip], ["a0", "a1", "b0"]))).toContain("C7");
    const other: Op = {
      kind: "read",
      client: 3,
      stream: "s",
      id: id++,
      invoke: 31,
      complete: 50,
      outcome: "ok",
      from: 0,
      limit: 5,
      records: seqs(0, ["a1"]),
    };
    expect(checks(hist([...base(), other], ["a0", "a1", "b0"]))).toContain("C7");
  });

  it("C7: a following reader may jump to a trim point, and nowhere else", () => {
    const ops: Op[] = [
      app({ records: ["a0", "a1", "a2", "trim:9"], invoke: 0, complete: 10, start: 0, end: 4 }),
      app({ records: ["b0"], invoke: 20, complete: 30, start: 4, end: 5 }),
    ];
    const jump: Op = {
      kind: "read-session",
      client: 3,
      stream: "s",
      id: id++,
      invoke: 0,
      complete: 50,
      outcome: "ok",
      from: 0,
      events: [{ records: seqs(4, ["b0"]) }],
    };
    expect(
      verify({ meta: {}, ops: [...ops, jump], final: { s: { first: 4, tail: 5, records: seqs(4, ["b0"]) } } }).summary,
    ).toBe("");
    const skip: Op = {
      kind: "read-session",
      client: 3,
      stream: "s",
      id: id++,
      invoke: 0,
      complete: 50,
      outcome: "ok",
      from: 0,
      events: [{ records: seqs(0, ["a0"]) }, { records: seqs(2, ["a2"]) }],
    };
    expect(
      checks({ meta: {}, ops: [...ops, skip], final: { s: { first: 4, tail: 5, records: seqs(4, ["b0"]) } } }),
    ).toContain("C7");
  });

  it("trims: one server holds reads to an acked trim at once; with asynchronous trims (several servers) records below it may still be read, a gap inside a read may not", () => {
    // a [0,4) trims to 3 (acked at 10); b [4,5). Reads after the trim was acked:
    const ops: Op[] = [
      app({ records: ["a0", "a1", "a2", "trim:3"], invoke: 0, complete: 10, start: 0, end: 4 }),
      app({ records: ["b0"], invoke: 20, complete: 30, start: 4, end: 5 }),
    ];
    const read = (from: number, keys: string[], first: number, invoke: number): Op => ({
      kind: "read",
      client: 1,
      stream: "s",
      id: id++,
      invoke,
      complete: invoke + 1,
      outcome: "ok",
      from,
      limit: 10,
      records: seqs(first, keys),
      tail: 5,
    });
    const final = { s: { first: 3, tail: 5, records: seqs(3, ["trim:3", "b0"]) } };
    const at = (h: History, async: boolean): History => ({ ...h, meta: async ? { trims: "async" } : {} });
    // The trimmed a1, a2 still returned (a read served below the trim point it had not seen yet),
    // then, from another server, a read that had seen the trim, then one that had not again.
    const late = {
      meta: {},
      ops: [...ops, read(3, ["trim:3", "b0"], 3, 40), read(1, ["a1", "a2", "trim:3", "b0"], 1, 50)],
      final,
    };
    expect(verify(at(late, false)).ok).toBe(false);
    expect(verify(at(late, true)).summary).toBe("");
    // Skipping to a trimmed record that is not the trim point: a1 gone, a2 still there.
    const partly = { meta: {}, ops: [...ops, read(0, ["a2", "trim:3", "b0"], 2, 40)], final };
    expect(verify(at(partly, false)).ok).toBe(false);
    expect(verify(at(partly, true)).summary).toBe("");
    // Still wrong with asynchronous trims: a read starting before its start, or past the trim
    // point, and a read with a hole after records it returned (a0, then a2: a1 skipped).
    for (const bad of [read(2, ["a1", "a2"], 1, 40), read(0, ["b0"], 4, 40)])
      expect(verify(at({ meta: {}, ops: [...ops, bad], final }, true)).ok).toBe(false);
    const hole: Op = {
      kind: "read",
      client: 1,
      stream: "s",
      id: id++,
      invoke: 40,
      complete: 41,
      outcome: "ok",
      from: 0,
      limit: 10,
      records: [
        { seq: 0, key: "a0" },
        { seq: 2, key: "a2" },
        { seq: 3, key: "trim:3" },
      ],
      tail: 5,
    };
    expect(checks(at({ meta: {}, ops: [...ops, hole], final }, true))).toContain("C7");
    // A read session's next batch may begin past trimmed records (a1) like a read; inside one
    // batch it may not.
    const session = (events: Observed[][]): History => ({
      meta: { trims: "async" },
      ops: [
        ...ops,
        {
          kind: "read-session",
          client: 2,
          stream: "s",
          id: id++,
          invoke: 40,
          complete: 50,
          outcome: "ok",
          from: 0,
          events: events.map((records) => ({ records })),
        },
      ],
      final,
    });
    const a0 = { seq: 0, key: "a0" };
    const rest = [
      { seq: 2, key: "a2" },
      { seq: 3, key: "trim:3" },
    ];
    expect(verify(session([[a0], rest])).summary).toBe("");
    expect(verify(at(session([[a0], rest]), false)).ok).toBe(false);
    expect(checks(session([[a0, ...rest]]))).toContain("C7"); // A short read may end where everything up to the tail was trimmed (a0 then nothing: a1,
    // a2 and the trim record removed, b not yet appended); not where records were left.
    const shortRead = (): Op => ({
      kind: "read",
      client: 1,
      stream: "s",
      id: id++,
      invoke: 12,
      complete: 13,
      outcome: "ok",
      from: 0,
      limit: 10,
      records: seqs(0, ["a0"]),
      tail: 1,
    });
    const upTo4 = app({ records: ["a0", "a1", "a2", "trim:4"], invoke: 0, complete: 10, start: 0, end: 4 });
    const emptied = { s: { first: 4, tail: 4, records: [] } };
    expect(verify({ meta: { trims: "async" }, ops: [upTo4, shortRead()], final: emptied }).summary).toBe("");
    expect(verify({ meta: {}, ops: [upTo4, shortRead()], final: emptied }).ok).toBe(false);
    // Trimmed to 3 only: the trim record itself was left after a0.
    expect(
      verify({
        meta: { trims: "async" },
        ops: [ops[0]!, shortRead()],
        final: { s: { first: 3, tail: 4, records: seqs(3, ["trim:3"]) } },
      }).ok,
    ).toBe(false);
  });

  it("C6 and search: a fence set by an indefinite append that a later trim removed", () => {
    // a [0,2); the lost append h (2 records, fence t1) landed at [2,4); b [4,6) trims to 4 and
    // was accepted with token t1, which only h can have set.
    const ops: Op[] = [
      app({ records: ["a0", "a1"], invoke: 0, complete: 10, start: 0, end: 2 }),
      app({ records: ["h0", "fence:t1"], invoke: 11, complete: 12, outcome: "info", error: "network" }),
      app({ records: ["b0", "trim:4"], invoke: 20, complete: 30, start: 4, end: 6, fencingToken: "t1" }),
    ];
    const h: History = { meta: {}, ops, final: { s: { first: 4, tail: 6, records: seqs(4, ["b0", "trim:4"]) } } };
    expect(verify(h).summary).toBe("");
    // Without the lost fence nothing explains the token.
    expect(
      verify({
        ...h,
        ops: [ops[0]!, app({ records: ["h0", "h1"], invoke: 11, complete: 12, outcome: "info" }), ops[2]!],
      }).ok,
    ).toBe(false);
  });

  it("C8: a trim past its own position", () => {
    const ops = [
      app({ records: ["a0", "trim:5"], invoke: 0, complete: 10, start: 0, end: 2 }),
      app({ records: ["b0", "b1", "b2"], invoke: 20, complete: 30, start: 2, end: 5 }),
    ];
    // The trim may only reach its own seq + 1 = 2; a stream starting at 3 lost b0.
    expect(checks({ meta: {}, ops, final: { s: { first: 3, tail: 5, records: seqs(3, ["b1", "b2"]) } } })).toContain(
      "C8",
    );
  });

  it("search: concurrent check-tails that no order explains", () => {
    const ops: Op[] = [
      app({ records: ["a0", "a1"], invoke: 0, complete: 100, start: 0, end: 2 }),
      { kind: "check-tail", client: 1, stream: "s", id: id++, invoke: 1, complete: 99, outcome: "ok", tail: 1 },
    ];
    expect(checkHistory(hist(ops, ["a0", "a1"])).ok).toBe(true);
    expect(searchCheck(hist(ops, ["a0", "a1"])).result).toBe("fail");
  });

  it("search: an indefinite append may or may not have applied", () => {
    const ops = [
      ...base(),
      app({ records: ["c0"], invoke: 31, outcome: "info", complete: undefined }),
      { kind: "check-tail", client: 1, stream: "s", id: id++, invoke: 40, complete: 41, outcome: "ok", tail: 4 } as Op,
    ];
    expect(verify(hist(ops, ["a0", "a1", "b0", "c0"])).ok).toBe(true);
    // Not stored, yet a later check-tail saw it: no linearization.
    expect(searchCheck(hist(ops, ["a0", "a1", "b0"])).result).toBe("fail");
  });
});
