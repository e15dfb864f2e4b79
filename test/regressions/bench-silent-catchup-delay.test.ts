/**
 * Bug (user trial): `svc bench --duration 5s` took 25 s: after writing it waited the default
 * `--catchup-delay` of 20 s before the catch-up read and said nothing meanwhile (on a terminal
 * the live line stood still). Now the plan says up front that it will wait and for how long,
 * a log gets a line when the wait starts, and a terminal's live line counts it down.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

const ARGS = ["--duration", "1s", "--catchup-delay", "3s", "--record-size", "1KiB", "--target-mibps", "0.1"];

describe("svc bench's wait before the catch-up read", () => {
  it("is announced in a log: up front, and when it starts", async () => {
    const r = await d.svc(["bench", d.basin, ...ARGS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("then waits 3 s (--catchup-delay) and reads everything back from the start");
    expect(r.stderr).toContain("at least 4 s in all");
    expect(r.stderr).toContain("writing done; waiting 3 s before the catch-up read (--catchup-delay)");
    expect(r.stdout).toContain("catch-up read:");
  }, 40_000);

  it.skipIf(!ptyAvailable)(
    "is counted down on a terminal",
    async () => {
      const r = await runSvcInPty(["bench", d.basin, ...ARGS], d.env);
      expect(r.code, r.raw).toBe(0);
      for (const left of [3, 2, 1])
        expect(r.raw).toContain(`waiting for the catch-up read: ${left} s left (--catchup-delay)`);
      expect(r.screen.join("\n")).toContain("catch-up read:");
    },
    40_000,
  );
});
