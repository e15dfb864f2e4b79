import { describe, expect, it } from "vitest";
import { AppendSession } from "../../../src/client/append-session.js";
import { faultySession } from "../../../src/client/faults.js";
import { SvcError } from "../../../src/errors.js";
import type { AppendInput } from "../../../src/types.js";
import { FakeExchange, pos } from "../../helpers/fake-exchange.js";

const enc = new TextEncoder();
const input = (n: number, body = "x", extra: Partial<AppendInput> = {}): AppendInput => ({
  records: Array.from({ length: n }, (_, i) => ({ headers: [], body: enc.encode(`${body}${i}`) })),
  ...extra,
});

/** An opener that hands out the scripted exchanges in order and counts the calls. */
function opener(...exchanges: (FakeExchange | Error)[]) {
  const calls: string[] = [];
  const open = async (req: { method: string; duplex: boolean }) => {
    calls.push(req.method);
    const next = exchanges.shift();
    if (!next) throw new Error("no more exchanges scripted");
    if (next instanceof Error) throw next;
    return next.opened();
  };
  return { open, calls };
}

describe("AppendSession (the appender's session lane)", () => {
  it("pipelines inputs and pairs acks in order", async () => {
    const ex = new FakeExchange();
    const { open } = opener(ex);
    const s = new AppendSession(open);
    const acks = [s.send(input(2)), s.send(input(3)), s.send(input(1))];
    await ex.waitInputs(3); // all three were written before any ack: pipelined
    ex.ack({ start: pos(0), end: pos(2), tail: pos(2) });
    ex.ack({ start: pos(2), end: pos(5), tail: pos(5) });
    ex.ack({ start: pos(5), end: pos(6), tail: pos(6) });
    const got = await Promise.all(acks);
    expect(got.map((a) => [a.start.seqNum, a.end.seqNum])).toEqual([
      [0, 2],
      [2, 5],
      [5, 6],
    ]);
    const closing = s.close();
    expect(ex.ended).toBe(true);
    ex.finish();
    await closing;
  });

  it("fails the input that poisoned the session and never applies the later ones", async () => {
    const ex = new FakeExchange();
    const s = new AppendSession(opener(ex).open);
    const a = s.send(input(1));
    const b = s.send(input(1, "y", { matchSeqNum: 7 }));
    const c = s.send(input(1, "z"));
    await ex.waitInputs(3);
    ex.ack({ start: pos(0), end: pos(1), tail: pos(1) });
    ex.terminal(412, { seq_num_mismatch: 1 });
    await expect(a).resolves.toMatchObject({ end: { seqNum: 1 } });
    await expect(b).rejects.toMatchObject({ code: "seq_num_mismatch", status: 412 });
    const err = await c.catch((e: SvcError) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({ code: "not_applied", sideEffects: false });
  });

  it("re-sends only the unacknowledged inputs after server_draining", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange();
    const { open, calls } = opener(first, second);
    const s = new AppendSession(open);
    const ps = [s.send(input(1, "a")), s.send(input(1, "b")), s.send(input(1, "c"))];
    await first.waitInputs(3);
    first.ack({ start: pos(0), end: pos(1), tail: pos(1) }, true);
    first.terminal(503, { code: "server_draining", message: "draining" });
    await second.waitInputs(2);
    expect(second.inputs.map((i) => new TextDecoder().decode(i.records[0]!.body))).toEqual(["b0", "c0"]);
    second.ack({ start: pos(1), end: pos(2), tail: pos(2) });
    second.ack({ start: pos(2), end: pos(3), tail: pos(3) });
    expect((await Promise.all(ps)).map((a) => a.start.seqNum)).toEqual([0, 1, 2]);
    expect(calls.length).toBe(2);
  });

  it("after reconnect advice, writes to a new session only once every in-flight ack arrived", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange();
    const s = new AppendSession(opener(first, second).open);
    const a = s.send(input(1, "a"));
    const b = s.send(input(1, "b"));
    await first.waitInputs(2);
    first.ack({ start: pos(0), end: pos(1), tail: pos(1) }, true);
    await new Promise((r) => setTimeout(r, 10)); // let the client see the advice
    const c = s.send(input(1, "c"));
    await new Promise((r) => setTimeout(r, 20));
    expect(first.ended).toBe(true);
    expect(second.inputs.length).toBe(0); // b is still in flight on the old session
    first.ack({ start: pos(1), end: pos(2), tail: pos(2) });
    first.finish();
    await second.waitInputs(1);
    second.ack({ start: pos(2), end: pos(3), tail: pos(3) });
    expect((await Promise.all([a, b, c])).map((x) => x.start.seqNum)).toEqual([0, 1, 2]);
    expect(first.inputs.length).toBe(2);
  });

  it("reports an unknown outcome, and does not re-send, when the connection drops with inputs in flight", async () => {
    const ex = new FakeExchange();
    const { open, calls } = opener(ex);
    const s = new AppendSession(open);
    const a = s.send(input(1));
    await ex.waitInputs(1);
    ex.cut();
    const err = await a.catch((e: SvcError) => e);
    expect(err).toMatchObject({ sideEffects: true });
    expect(calls.length).toBe(1);
    await expect(s.send(input(1))).rejects.toMatchObject({ code: "not_applied" });
  });

  it("the seeded bug resend-indefinite (client/faults.ts) sends what was in flight again on a new connection", async () => {
    const first = new FakeExchange();
    const second = new FakeExchange();
    const { open, calls } = opener(first, second);
    const s = faultySession("resend-indefinite", open, {});
    const a = s.send(input(1, "a"));
    await first.waitInputs(1);
    first.cut();
    await second.waitInputs(1);
    expect(new TextDecoder().decode(second.inputs[0]!.records[0]!.body)).toBe("a0");
    second.ack({ start: pos(0), end: pos(1), tail: pos(1) });
    await expect(a).resolves.toMatchObject({ end: { seqNum: 1 } });
    expect(calls.length).toBe(2);
  });

  it("reports an unknown outcome when no ack arrives in time", async () => {
    const ex = new FakeExchange();
    const s = new AppendSession(opener(ex).open, { ackTimeoutMs: 50 });
    const err = await s.send(input(1)).catch((e: SvcError) => e);
    expect(err).toMatchObject({ code: "client_timeout", sideEffects: true });
  });

  it("retries connecting when nothing was sent, and gives up with a definite error otherwise", async () => {
    const refused = new SvcError({ code: "connect_failed", message: "refused", origin: "client" });
    const ex = new FakeExchange();
    const s = new AppendSession(opener(refused, refused, ex).open);
    const a = s.send(input(1));
    await ex.waitInputs(1);
    ex.ack({ start: pos(0), end: pos(1), tail: pos(1) });
    await expect(a).resolves.toBeDefined();

    const missing = new FakeExchange(404, JSON.stringify({ code: "stream_not_found", message: "no such stream" }));
    const s2 = new AppendSession(opener(missing).open);
    await expect(s2.send(input(1))).rejects.toMatchObject({
      code: "stream_not_found",
      status: 404,
      sideEffects: false,
    });
  });

  it("fails an input whose ack does not match it", async () => {
    const ex = new FakeExchange();
    const s = new AppendSession(opener(ex).open);
    const a = s.send(input(2));
    await ex.waitInputs(1);
    ex.ack({ start: pos(0), end: pos(3), tail: pos(3) });
    await expect(a).rejects.toMatchObject({ code: "protocol" });
  });
});
