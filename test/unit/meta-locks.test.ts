import { describe, expect, it } from "vitest";
import { MetaLocks } from "../../src/lite/store/meta-locks.js";

/** A step that stays open until `open()`; records when it ran. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return { open, done };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("metadata locks", () => {
  it("run operations on different streams of one basin at once", async () => {
    const locks = new MetaLocks(async () => {});
    const g = gate();
    const running: string[] = [];
    const a = locks.stream("b", "s1", async () => {
      running.push("s1");
      await g.done;
    });
    const b = locks.stream("b", "s2", async () => {
      running.push("s2");
      await g.done;
    });
    await tick();
    expect(running).toEqual(["s1", "s2"]);
    g.open();
    await Promise.all([a, b]);
  });

  it("run operations on one stream one at a time, in arrival order", async () => {
    const locks = new MetaLocks(async () => {});
    const order: string[] = [];
    const g = gate();
    const first = locks.stream("b", "s", async () => {
      order.push("first begins");
      await g.done;
      order.push("first ends");
    });
    const second = locks.stream("b", "s", () => void order.push("second"));
    await tick();
    expect(order).toEqual(["first begins"]);
    g.open();
    await Promise.all([first, second]);
    expect(order).toEqual(["first begins", "first ends", "second"]);
  });

  it("keep a basin's own operation apart from its streams', and from nothing else", async () => {
    const locks = new MetaLocks(async () => {});
    const order: string[] = [];
    const g = gate();
    const stream = locks.stream("b", "s", async () => {
      order.push("stream");
      await g.done;
      order.push("stream ends");
    });
    const basin = locks.basin("b", () => void order.push("basin"));
    const later = locks.stream("b", "t", () => void order.push("later stream")); // waits behind the basin (FIFO)
    const other = locks.basin("c", () => void order.push("other basin"));
    await other;
    await tick();
    expect([...order].sort()).toEqual(["other basin", "stream"]);
    g.open();
    await Promise.all([stream, basin, later]);
    expect(order.slice(2)).toEqual(["stream ends", "basin", "later stream"]);
  });

  it("answer only once what was written is settled, and release on failure", async () => {
    const g = gate();
    let settled = 0;
    const locks = new MetaLocks(async () => {
      await g.done;
      settled++;
    });
    let answered = false;
    const op = locks.read(() => 1).then((v) => ((answered = true), v));
    await tick();
    expect(answered).toBe(false);
    g.open();
    expect(await op).toBe(1);
    expect(settled).toBe(1);
    await expect(locks.stream("b", "s", () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(await locks.stream("b", "s", () => 2)).toBe(2);
  });
});
