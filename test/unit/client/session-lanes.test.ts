/**
 * The lanes of a session pool (src/transport/session-lanes.ts): how many exchanges each
 * connection to an origin is given, before and after its server said its limit.
 */
import type http2 from "node:http2";
import { describe, expect, it } from "vitest";
import { Lanes, type Place } from "../../../src/transport/session-lanes.js";

/** A connection as Lanes sees it: only its server's SETTINGS. */
const connection = (maxConcurrentStreams: number) =>
  ({ remoteSettings: { maxConcurrentStreams } }) as unknown as http2.ClientHttp2Session;

describe("session lanes", () => {
  it("fill a connection up to its server's limit, then open the next", () => {
    const lanes = new Lanes();
    const first = lanes.take("http://a");
    lanes.up(first.lane, connection(2));
    const second = lanes.take("http://a");
    const third = lanes.take("http://a");
    expect([first.lane, second.lane, third.lane]).toEqual(["http://a 0", "http://a 0", "http://a 1"]);
    expect([first, second, third].map((p) => lanes.fits(p))).toEqual([true, true, true]);
  });

  it("check places taken before the limit was known against it, in the order they were taken", () => {
    const lanes = new Lanes();
    const [e0, e1, e2, e3] = [1, 2, 3, 4].map(() => lanes.take("http://a")) as [Place, Place, Place, Place];
    const early = [e0, e1, e2, e3];
    expect(new Set(early.map((p) => p.lane))).toEqual(new Set(["http://a 0"]));
    lanes.up("http://a 0", connection(2));
    expect(early.map((p) => lanes.fits(p))).toEqual([true, true, false, false]);
    // One moves (as SessionPool.open does): it gets a place on the next connection.
    lanes.giveBack(e2);
    const moved = lanes.take("http://a");
    expect(moved.lane).toBe("http://a 1");
    // A place that ends lets the ones after it in: the last early one now fits.
    lanes.giveBack(e0);
    expect(lanes.fits(e3)).toBe(true);
  });

  it("give a place back once, whatever says so twice", () => {
    const lanes = new Lanes();
    const a = lanes.take("http://a");
    lanes.up(a.lane, connection(1));
    const b = lanes.take("http://a");
    expect(b.lane).toBe("http://a 1");
    lanes.giveBack(a);
    lanes.giveBack(a);
    expect(lanes.take("http://a").lane).toBe("http://a 0");
    // Lane 1's limit is not known yet (its connection is not up): it takes more meanwhile.
    expect(lanes.take("http://a").lane).toBe("http://a 1");
  });
});
