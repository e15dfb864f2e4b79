/**
 * Found by a CLI probe (wrong data): `svc append --format json` encoded a body holding a lone
 * UTF-16 surrogate (`"\ud800"`) to UTF-8 as U+FFFD and stored that, exit 0, where lite
 * refuses the same string (400 bad_json: a lone surrogate has no UTF-8 form; send such bytes
 * as base64). Now svc refuses the line: exit 7, naming it, and nothing is appended.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `surrogate-${process.pid}`;

beforeAll(async () => {
  lite = await startLite({ inMemory: true });
  await createStreams(lite, basin, ["s"]);
});

afterAll(async () => {
  await lite?.stop();
});

describe("svc append --format json", () => {
  it.each([
    ["a body", '{"body":"ok"}\n{"body":"x\\ud800y"}\n'],
    ["a header value", '{"headers":[["k","\\udc00"]],"body":"x"}\n'],
  ])("refuses a lone surrogate in %s (exit 7), appending nothing", async (_what, stdin) => {
    const r = await runSvc(["append", `svc://${basin}/s`, "--format", "json"], { stdin, env: cliEnv(lite) });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/stdin:\d+: .*lone UTF-16 surrogate/);
    expect((await liteClient(lite).call("GET", "/v1/streams/s/records/tail", { basin })).json().tail.seq_num).toBe(0);
  });

  it("keeps a proper surrogate pair (an emoji) as its UTF-8 bytes", async () => {
    const r = await runSvc(["append", `svc://${basin}/s`, "--format", "json"], {
      stdin: '{"body":"\\ud83d\\ude00"}\n',
      env: cliEnv(lite),
    });
    expect(r.code).toBe(0);
    const back = (
      await liteClient(lite).call("GET", "/v1/streams/s/records", {
        basin,
        query: { seq_num: 0 },
        headers: { "svc-format": "base64" },
      })
    ).json().records[0].body;
    expect(Buffer.from(back, "base64")).toEqual(Buffer.from("😀", "utf8"));
  });
});
