/**
 * Bug (user trial): Ctrl-C did not always exit 130 as the README says. At a `[y/N]` prompt
 * (`svc basin delete B` on a terminal) it exited 1, as a "no" does; `svc tail -f 'svc://b/x*'`
 * following zero streams (the pattern matched nothing yet) exited 0: its loop waited on no
 * reader, so once the interrupt stopped the pattern's listing, Node found nothing left to do.
 *
 * Expected: Ctrl-C is exit 130 everywhere, with nothing done at a prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { eventually } from "../helpers/lite.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe.skipIf(!ptyAvailable)("Ctrl-C at a [y/N] prompt", () => {
  it("exits 130 with nothing deleted", async () => {
    const uri = await d.newStream("keep");
    const r = await runSvcInPty(["stream", "delete", uri], d.env, { input: { when: "[y/N]", text: "\x03" } });
    expect(r.raw).toContain("[y/N]");
    expect(r.raw).toContain("interrupted; nothing deleted");
    expect(r.code, r.raw).toBe(130);
    const still = await d.svc(["stream", "get", uri]);
    expect(still.code, still.stderr).toBe(0);
  }, 30_000);

  it("a no still exits 1", async () => {
    const uri = await d.newStream("keep-no");
    const r = await runSvcInPty(["stream", "delete", uri], d.env, { input: { when: "[y/N]", text: "n\n" } });
    expect(r.code, r.raw).toBe(1);
    expect(r.raw).toContain("aborted; nothing deleted");
  }, 30_000);
});

describe("Ctrl-C in svc tail -f following zero streams", () => {
  it("exits 130", async () => {
    const child = d.spawnSvc(["tail", "-f", `svc://${d.basin}/nothing-here-*`]);
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await eventually(async () => err.includes("following 0 streams"), 20_000);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
  }, 30_000);
});
