/**
 * Bug (issue 42 item 5): what S2's CLI accepts was refused by svc: a boolean value after a
 * switch (`create-basin B --create-stream-on-append true`: "too many arguments", exit 2) and
 * `-f TOKEN` as the fencing token of `append` (unknown option). A script written for S2 broke.
 *
 * Now both are read as S2's CLI reads them (true: the switch; false: its negation; `-f`: `-F`),
 * as S2's own integration tests use them, against a real lite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { uniqueBasin } from "../helpers/lite.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("S2's CLI spellings", () => {
  it("create-basin --create-stream-on-append true / false", async () => {
    const on = uniqueBasin("s2bool");
    const r = await d.svc(["create-basin", on, "--create-stream-on-append", "true"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse((await d.svc(["basin", "get", on, "--json"])).stdout).config).toMatchObject({
      create_stream_on_append: true,
    });
    const off = await d.svc(["reconfigure-basin", on, "--create-stream-on-append", "false"]);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse((await d.svc(["basin", "get", on, "--json"])).stdout).config).toMatchObject({
      create_stream_on_append: false,
    });
  });

  it("append -f TOKEN is the fencing token", async () => {
    const uri = await d.newStream("s2f");
    expect((await d.svc(["fence", uri, "tok"])).code).toBe(0);
    const ok = await d.svc(["append", uri, "-f", "tok"], { stdin: "fenced\n" });
    expect(ok.code, ok.stderr).toBe(0);
    const wrong = await d.svc(["append", uri, "-f", "other"], { stdin: "no\n" });
    expect(wrong.code, wrong.stderr).toBe(5);
    expect((await d.svc(["read", uri, "-s", "0", "-e"])).stdout).toBe("fenced\n");
  });
});
