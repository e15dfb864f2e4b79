/**
 * Bug (user trial): a read starting beyond the tail (416) had no hint, and an empty stream's
 * tail showed as `(0 @ 0)` there while `svc check-tail` shows `0 @ -`.
 *
 * Expected: the 416 says the tail as check-tail does (`0 @ -` for a stream with no record) and
 * hints at the next position and at --clamp.
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

describe("a read that starts beyond the tail", () => {
  it("an empty stream: 0 @ -, and a hint", async () => {
    const uri = await d.newStream("empty");
    const r = await d.svc(["read", uri, "-s", "5", "-e"]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("the read starts beyond the tail (0 @ -)");
    expect(r.stderr).toContain(
      "hint: the stream's next position is 0: start at or before it (-s 0 waits for the next record), or add --clamp to start at the tail",
    );
    expect((await d.svc(["check-tail", uri])).stdout).toBe("0 @ -\n");
  });

  it("a stream with records: its next position", async () => {
    const uri = await d.newStream("three");
    expect((await d.svc(["append", uri, "-q"], { stdin: "a\nb\nc\n" })).code).toBe(0);
    const r = await d.svc(["read", uri, "-s", "10", "-e"]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("hint: the stream's next position is 3:");
  });
});
