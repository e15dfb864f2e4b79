/**
 * What append sessions may hold of the shared in-flight budget (session/append-limits.ts):
 * a session an eighth, a connection and a principal a quarter each, a principal on one
 * connection half of the connection's quarter, and the rest stays for the others.
 */
import { describe, expect, it } from "vitest";
import { AppendLimits } from "../../../src/lite/session/append-limits.js";
import type { Budget } from "../../../src/lite/session/byte-budget.js";

const MIB = 1 << 20;

/** Takes 64 KiB at a time until an acquire waits; returns how much it got. */
async function fill(b: Budget): Promise<number> {
  let got = 0;
  for (;;) {
    const granted = await Promise.race([
      b.acquire(64 << 10).then(() => true),
      new Promise((r) => setTimeout(r, 5, false)),
    ]);
    if (!granted) return got;
    got += 64 << 10;
  }
}

describe("append limits", () => {
  const limits = () => new AppendLimits(8 * MIB, 30_000);

  it("caps a session at an eighth of the budget", async () => {
    const l = limits();
    expect(await fill(l.open("root", {}))).toBe(1 * MIB);
  });

  it("caps one principal's sessions, on any number of connections, at a quarter", async () => {
    const l = limits();
    let total = 0;
    for (let i = 0; i < 9; i++) {
      const filled = await fill(l.open("token a", {}));
      total += filled;
    }
    expect(total).toBe(2 * MIB);
    expect(await fill(l.open("token b", {}))).toBe(1 * MIB); // another token is not held up
    expect(l.shared.inUse).toBe(3 * MIB);
  });

  it("caps one connection's sessions, of any number of principals, at a quarter", async () => {
    const l = limits();
    const conn = {};
    let total = 0;
    for (let i = 0; i < 9; i++) {
      const filled = await fill(l.open(`token ${i}`, conn));
      total += filled;
    }
    expect(total).toBe(2 * MIB);
    expect(await fill(l.open("token x", {}))).toBe(1 * MIB);
  });

  it("caps one principal's sessions on one connection at half the connection's share", async () => {
    const l = limits();
    const conn = {};
    let total = 0;
    for (let i = 0; i < 4; i++) {
      const got = await fill(l.open("token a", conn));
      total += got;
    }
    expect(total).toBe(1 * MIB);
    expect(await fill(l.open("token b", conn))).toBe(1 * MIB); // another tenant on the connection is not held up
  });

  it("without auth (no principal) only the session and connection caps apply", async () => {
    const l = limits();
    let total = 0;
    for (let i = 0; i < 9; i++) {
      const filled = await fill(l.open(undefined, {}));
      total += filled;
    }
    expect(total).toBe(8 * MIB);
  });

  it("gives a principal's share back: released bytes and closed sessions", async () => {
    const l = limits();
    const s = l.open("token a", {});
    const release = await s.acquire(MIB);
    release();
    release(); // twice releases once
    expect(l.shared.inUse).toBe(0);
    s.close();
    expect(await fill(l.open("token a", {}))).toBe(1 * MIB);
  });
});
