/**
 * Bug (user trial): `svc read --meta-only` was ignored in text mode (it printed the bodies), and
 * `--headers-only` likewise (and with a template): a flag that silently does nothing.
 *
 * Now `--meta-only` prints `SEQ<TAB>TIMESTAMP` lines in text mode (ISO times with
 * `--time-format iso`) and the bare `{seq_num, timestamp}` in JSON; where a flag cannot apply
 * (`--headers-only` in text, either with a template or binary) it is a usage error (exit 2).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
let uri: string;
beforeAll(async () => {
  d = await dataEnv();
  uri = await d.newStream("meta");
  expect((await d.svc(["append", uri, "-q"], { stdin: "secret-body-1\nsecret-body-2\n" })).code).toBe(0);
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("svc read --meta-only", () => {
  it("prints sequence numbers and timestamps in text mode, never the bodies", async () => {
    const r = await d.svc(["read", uri, "-s", "0", "-n", "2", "--meta-only"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^0\t\d{13}\n1\t\d{13}\n$/);
    const iso = await d.svc(["read", uri, "-s", "0", "-n", "2", "--meta-only", "--time-format", "iso"]);
    expect(iso.stdout).toMatch(/^0\t\d{4}-\d\d-\d\dT[\d:.]+Z\n1\t/);
    const json = await d.svc(["read", uri, "-s", "0", "-n", "1", "--meta-only", "--json"]);
    expect(Object.keys(JSON.parse(json.stdout))).toEqual(["seq_num", "timestamp"]);
  });

  it.each([
    [["--headers-only"]],
    [["--meta-only", "--template", "{body}"]],
    [["--headers-only", "--format", "binary"]],
  ])("refuses %j where it cannot apply (exit 2)", async (flags) => {
    const r = await d.svc(["read", uri, "-s", "0", "-n", "2", ...flags]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
  });
});
