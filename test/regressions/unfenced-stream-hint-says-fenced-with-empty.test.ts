/**
 * Bug (user trial): appending with `-F x` to a stream that was never fenced (or whose token
 * was cleared) failed, rightly, with exit 5, but the hint said ``the stream is fenced with "";
 * only its holder should write (-F "")``: an empty token is no fence at all.
 *
 * Expected: the hint says the stream has no fencing token, and to drop -F (or fence it first);
 * a stream fenced with a token still names it.
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

describe("a fencing-token mismatch's hint", () => {
  it("a stream never fenced has no fencing token", async () => {
    const uri = await d.newStream("unfenced");
    const r = await d.svc(["append", uri, "-F", "x"], { stdin: "a\n" });
    expect(r.code).toBe(5);
    expect(r.stderr).not.toContain('fenced with ""');
    expect(r.stderr).toContain(
      `hint: ${uri} has no fencing token: append without -F, or fence it first (\`svc fence ${uri} x\`)`,
    );
  });

  it("a fenced stream's hint names its token", async () => {
    const uri = await d.newStream("fenced");
    expect((await d.svc(["fence", uri, "writer-1"])).code).toBe(0);
    const r = await d.svc(["append", uri, "-F", "x"], { stdin: "a\n" });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'hint: the stream is fenced with "writer-1"; only its holder should write (-F "writer-1")',
    );
  });
});
