/**
 * Bug (user trial): `svc tail -f 'svc://b/s-*'` following more than ten streams printed
 * "MaxListenersExceededWarning: Possible EventTarget memory leak detected. 11 abort listeners
 * added to [AbortSignal]" on stderr: each stream's reader added its own listener to the one
 * Ctrl-C signal (cli/read/multi-tail.ts). Reproduced with 12 streams and a pattern.
 *
 * Expected: one listener fans the interrupt out to every reader; no warning with 25 streams,
 * and Ctrl-C still stops them all (exit 130).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { eventually } from "../helpers/lite.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
  for (let i = 0; i < 25; i++) await d.newStream("many");
}, 120_000);
afterAll(async () => {
  await d?.stop();
});

describe("svc tail -f of 25 streams", () => {
  it("follows them all with no leak warning, and Ctrl-C ends it with 130", async () => {
    const child = d.spawnSvc(["tail", "-f", `svc://${d.basin}/many-*`, "-n", "1"]);
    let err = "";
    let out = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await eventually(async () => err.includes("following 25 streams"), 20_000);
    // A record appended to the last stream comes through its reader.
    const put = await d.svc(["append", `svc://${d.basin}/many-24`, "-q"], { stdin: "ping\n" });
    expect(put.code, put.stderr).toBe(0);
    await eventually(async () => out.includes("[many-24] ping"), 20_000);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(err).not.toContain("MaxListenersExceededWarning");
    expect(err).not.toContain("memory leak");
  }, 60_000);
});
