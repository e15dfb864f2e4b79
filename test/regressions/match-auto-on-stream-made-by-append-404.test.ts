/**
 * Bug (user trial): `svc append URI -m auto` on a stream that does not exist yet, in a basin that
 * creates streams on append, failed with 404 stream_not_found: `auto` asked the stream's tail
 * first, and a stream that does not exist has none, though a plain append would have made it.
 *
 * Expected: a stream that does not exist has tail 0 for `-m auto`: the append creates it with
 * match_seq_num 0 (so a writer that made it first and appended still fails it, 412); in a basin
 * that does not create streams on append, the append itself says the stream is not found.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
let creating: string;
beforeAll(async () => {
  d = await dataEnv();
  creating = `auto-${Date.now().toString(36)}-${process.pid}`;
  const b = await d.svc(["basin", "create", creating, "--create-stream-on-append"]);
  expect(b.code, b.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("append -m auto to a stream that does not exist yet", () => {
  it("in a basin that creates streams on append: appends at 0", async () => {
    const uri = `svc://${creating}/new-one`;
    const r = await d.svc(["append", uri, "-m", "auto"], { stdin: "first\nsecond\n" });
    expect(r.code, r.stderr).toBe(0);
    const back = await d.svc(["read", uri, "-s", "0", "-e"]);
    expect(back.stdout).toBe("first\nsecond\n");
    const again = await d.svc(["append", uri, "-m", "auto"], { stdin: "third\n" });
    expect(again.code, again.stderr).toBe(0);
    expect((await d.svc(["check-tail", uri, "--seq-only"])).stdout.trim()).toBe("3");
  });

  it("fence -m auto too", async () => {
    const r = await d.svc(["fence", `svc://${creating}/fenced-new`, "writer-1", "-m", "auto"]);
    expect(r.code, r.stderr).toBe(0);
  });

  it("in a basin that does not create streams: the append says not found (exit 4)", async () => {
    const r = await d.svc(["append", `svc://${d.basin}/missing`, "-m", "auto"], { stdin: "x\n" });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("stream_not_found");
  });
});
