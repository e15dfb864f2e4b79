/**
 * Bug (user trial): `svc diff svc://b/a svc://b/b` of two streams holding different records
 * said "✓ no differences": it compares configs only, and did not say so.
 *
 * Expected: the message says what was compared (configs only, and how to compare more);
 * `--tails` compares the streams' tails too, so different data shows as a difference.
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

describe("svc diff of two streams", () => {
  it("says it compared configs only; --tails compares the tails", async () => {
    const a = await d.newStream("a");
    const b = await d.newStream("b");
    expect((await d.svc(["append", a, "-q"], { stdin: "1\n2\n3\n" })).code).toBe(0);
    const configs = await d.svc(["diff", a, b]);
    expect(configs.code).toBe(0);
    expect(configs.stderr).toContain(
      `no differences between the configs of ${a} and ${b} (configs only: --tails compares their tails; records are not compared)`,
    );
    const tails = await d.svc(["diff", a, b, "--tails", "--exit-code"]);
    expect(tails.code).toBe(10);
    expect(tails.stdout).toContain("~ tail.seq_num: 3 → 0");
  });
});
