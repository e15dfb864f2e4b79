/**
 * The one appender (client/appender.ts): `submit` checks each input once, whatever the
 * transport, and waits for room under `maxInflightBytes` (backpressure); inputs go out in the
 * order submitted; after a failure nothing later is sent; `auto` falls back to unary appends,
 * in order, when the server has no sessions.
 */
import { describe, expect, it } from "vitest";
import { AppendSession } from "../../../src/client/append-session.js";
import { Appender, type AppendLane } from "../../../src/client/appender.js";
import { UnaryAppends } from "../../../src/client/unary-appends.js";
import { SvcError } from "../../../src/errors.js";
import type { AppendAck, AppendInput } from "../../../src/types.js";
import { FakeExchange, pos } from "../../helpers/fake-exchange.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
/** One record of `n` body bytes: `n + 8` metered. */
const input = (tag: string, n = 60): AppendInput => ({
  records: [{ headers: [], body: enc.encode(tag.padEnd(n, ".")) }],
});
const tagOf = (i: AppendInput): string => dec.decode(i.records[0]!.body).replace(/\.+$/, "");
const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

/** A unary lane whose appends the test acks (or fails) one by one, in order. */
function scriptedUnary() {
  const sent: AppendInput[] = [];
  const pending: { resolve: (a: AppendAck) => void; reject: (e: unknown) => void }[] = [];
  let settled = 0;
  let tail = 0;
  const lane = new UnaryAppends(
    (i) =>
      new Promise<AppendAck>((resolve, reject) => {
        sent.push(i);
        pending.push({ resolve, reject });
      }),
  );
  return {
    lane,
    sent,
    ackNext() {
      const start = tail;
      tail += sent[settled++]!.records.length;
      pending.shift()!.resolve({ start: pos(start), end: pos(tail), tail: pos(tail) });
    },
    failNext(e: unknown) {
      settled++;
      pending.shift()!.reject(e);
    },
  };
}

const noSession = (): AppendLane => {
  throw new Error("no session lane expected");
};

describe("Appender", () => {
  it("submit waits for room: an input is taken only while the unacknowledged bytes fit", async () => {
    const ex = new FakeExchange();
    const session = new AppendSession(async () => ex.opened());
    const a = new Appender({ session: () => session, unary: noSession }, { maxInflightBytes: 100 });
    const first = await a.submit(input("a")); // 68 metered: taken at once
    let secondTaken = false;
    const second = a.submit(input("b")).then((t) => {
      secondTaken = true;
      return t;
    });
    await ex.waitInputs(1);
    await tick(20);
    expect([secondTaken, ex.inputs.length, a.pendingBytes]).toEqual([false, 1, 68]); // 68 + 68 > 100
    ex.ack({ start: pos(0), end: pos(1), tail: pos(1) });
    await expect(first.ack()).resolves.toMatchObject({ end: { seqNum: 1 } });
    const t2 = await second;
    await ex.waitInputs(2);
    expect(ex.inputs.map(tagOf)).toEqual(["a", "b"]);
    ex.ack({ start: pos(1), end: pos(2), tail: pos(2) });
    await expect(t2.ack()).resolves.toMatchObject({ start: { seqNum: 1 } });
    const closing = a.close();
    await tick();
    ex.finish();
    await closing;
  });

  it("checks every input once, before anything is sent, whatever the transport", async () => {
    const u = scriptedUnary();
    const a = new Appender({ unary: () => u.lane }, { transport: "unary" });
    await expect(a.submit({ records: [] })).rejects.toMatchObject({ code: "bad_input", origin: "client" });
    const tooBig = { records: [{ headers: [], body: new Uint8Array(1024 * 1024) }] };
    await expect(a.submit(tooBig)).rejects.toMatchObject({ code: "bad_input" });
    expect(u.sent).toHaveLength(0);
    // A refused input does not stop the appender.
    const t = await a.submit(input("ok"));
    u.ackNext();
    await expect(t.ack()).resolves.toMatchObject({ end: { seqNum: 1 } });
    await a.close();
  });

  it("after a failure, nothing later is sent: waiting and later inputs fail as not applied", async () => {
    const u = scriptedUnary();
    const a = new Appender({ unary: () => u.lane }, { transport: "unary", maxInflightBytes: 100 });
    const t1 = await a.submit(input("a"));
    const waiting = a.submit(input("b"));
    u.failNext(new SvcError({ code: "fencing_token_mismatch", status: 412, message: "mismatch", origin: "server" }));
    await expect(t1.ack()).rejects.toMatchObject({ code: "fencing_token_mismatch" });
    await expect(waiting).rejects.toMatchObject({ code: "not_applied", sideEffects: false });
    await expect(a.append(input("c"))).rejects.toMatchObject({ code: "not_applied" });
    expect(u.sent.map(tagOf)).toEqual(["a"]);
    await expect(a.close()).rejects.toMatchObject({ code: "fencing_token_mismatch" });
  });

  it("auto: a server without sessions (501, nothing sent) gets every input unary, in order", async () => {
    const u = scriptedUnary();
    const session = new AppendSession(
      async () => new FakeExchange(501, JSON.stringify({ code: "not_implemented", message: "no sessions" })).opened(),
      { retries: 0 },
    );
    const a = new Appender({ session: () => session, unary: () => u.lane }, { transport: "auto" });
    const acks = ["a", "b", "c"].map((t) => a.append(input(t)));
    while (u.sent.length < 1) await tick(5);
    for (let i = 0; i < 3; i++) {
      while (u.sent.length <= i) await tick(5);
      u.ackNext();
    }
    expect((await Promise.all(acks)).map((x) => x.start.seqNum)).toEqual([0, 1, 2]);
    expect(u.sent.map(tagOf)).toEqual(["a", "b", "c"]);
    await a.close();
  });

  it("room() resolves once an input of that size would be taken at once", async () => {
    const u = scriptedUnary();
    const a = new Appender({ unary: () => u.lane }, { transport: "unary", maxInflightBytes: 100 });
    await a.room(68);
    const t = await a.submit(input("a"));
    let roomy = false;
    const room = a.room(68).then(() => {
      roomy = true;
    });
    await tick();
    expect(roomy).toBe(false);
    u.ackNext();
    await t.ack();
    await room;
    await a.close();
  });

  it("abort: inputs waiting for room are never sent", async () => {
    const u = scriptedUnary();
    const a = new Appender({ unary: () => u.lane }, { transport: "unary", maxInflightBytes: 100 });
    await a.submit(input("a"));
    const waiting = a.submit(input("b"));
    a.abort("interrupted");
    await expect(waiting).rejects.toMatchObject({ code: "not_applied" });
    u.ackNext();
    expect(u.sent.map(tagOf)).toEqual(["a"]);
  });
});
