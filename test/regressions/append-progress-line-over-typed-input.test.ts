/**
 * Bug (user trial): `svc append` with its input typed at a terminal drew its live progress line
 * (`⦿ appending: …`, redrawn every 250 ms on stderr) over the line the user was typing, and on
 * Ctrl-C the summary rounded its rates to whole numbers: one record in three seconds read
 * "0 records/s". Now input typed at a terminal gets one `✓ appended` line per acked batch and
 * no live line, and rates below 10 keep two significant digits (`0.3 records/s`).
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

describe.skipIf(!ptyAvailable)("svc append with input typed at a terminal", () => {
  it("draws no live line over the typing, acks each typed line, and Ctrl-C's summary keeps a slow rate", async () => {
    const uri = await d.newStream("typed");
    const r = await runSvcInPty(["append", uri], d.env, {
      input: [
        { afterMs: 800, text: "first line\n" },
        // Ctrl-C once the line is acked and more than a second later: the rate is then below
        // 1 record/s, which whole numbers round to 0 or 1 (the time passing is the point).
        { when: /appended 0 \(1 record\)/, afterMs: 1_200, text: "\x03" },
      ],
    });
    expect(r.code, r.raw).toBe(130);
    expect(r.raw).not.toContain("⦿");
    expect(r.screen).toContain("first line");
    expect(
      r.screen.some((l) => /^✓ appended 0 \(1 record\)/.test(l)),
      r.screen.join("\n"),
    ).toBe(true);
    const summary = r.screen.find((l) => /appended 1 record \(/.test(l)) ?? "";
    const rate = /, ([\d.<]+) records\/s\)/.exec(summary)?.[1];
    expect(rate, summary).toBeDefined();
    expect(Number(rate)).toBeGreaterThan(0);
    expect(Number(rate)).toBeLessThan(1);
    const read = await d.svc(["read", uri, "-s", "0", "-e"]);
    expect(read.stdout).toBe("first line\n");
  }, 40_000);
});
