/**
 * Bug: `check-tail` on an empty stream printed `0 @ 1970-01-01T00:00:00.000Z`
 * (and `0 @ 0`), a last-record time for a stream with no records. It now prints `0 @ -`, and
 * `"timestamp": null` in JSON; a written stream still shows its last record's time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("check-tail of an empty stream", () => {
  it("has no last timestamp, in text, ISO and JSON; after one append it has one", async () => {
    const uri = await d.newStream("empty");
    expect((await d.svc(["check-tail", uri])).stdout).toBe("0 @ -\n");
    expect((await d.svc(["check-tail", uri, "--time-format", "iso"])).stdout).toBe("0 @ -\n");
    expect(JSON.parse((await d.svc(["check-tail", uri, "--json"])).stdout)).toEqual({ seq_num: 0, timestamp: null });
    const before = Date.now();
    expect((await d.svc(["append", uri, "-q"], { stdin: "x\n" })).code).toBe(0);
    const t = (await d.svc(["check-tail", uri])).stdout.trim().split(" @ ");
    expect(t[0]).toBe("1");
    expect(Number(t[1])).toBeGreaterThanOrEqual(before - 1000);
    expect((await d.svc(["check-tail", uri, "--time-format", "iso"])).stdout).toMatch(/^1 @ \d{4}-\d\d-\d\dT/);
  });
});
