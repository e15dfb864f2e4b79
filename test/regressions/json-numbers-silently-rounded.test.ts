/**
 * Found by a bad-input probe: JSON numbers that are not integers but that JSON.parse rounds
 * to one were taken as that integer, silently: `"match_seq_num": 6006.9999999999999999`
 * matched a tail of 6007 and the append went through; a timestamp of 4503599627370497.5 was
 * stored as 4503599627370498; a retention age of 86399.99999999999999 became 86400; and
 * `svc append --format json` stored the same rounded timestamp. Sequence numbers and
 * timestamps are never silently rounded: these are now 400 bad_json from lite, and a
 * one-line error with exit 7 from svc; `1.0` and `1e3`, integers as written, still pass.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `rounded-${process.pid}`;
const work = mkdtempSync(join(tmpdir(), "svc-rounded-"));

beforeAll(async () => {
  lite = await startLite();
  await createStreams(lite, basin, { s: { timestamping: { uncapped: true }, retention_policy: { age: 3600 } } });
});

afterAll(async () => {
  await lite?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Sends `text` as a JSON body exactly as written (the helper would re-serialize values). */
const raw = (method: string, path: string, text: string) =>
  liteClient(lite).call(method, path, { basin, body: text, headers: { "content-type": "application/json" } });
const tail = async () =>
  (await liteClient(lite).call("GET", "/v1/streams/s/records/tail", { basin })).json().tail.seq_num as number;

describe("JSON numbers that JSON.parse would round to an integer", () => {
  it("are refused by lite (400 bad_json), and nothing changes", async () => {
    expect((await raw("POST", "/v1/streams/s/records", '{"records":[{"body":"a"}]}')).status).toBe(200);
    const cases = [
      ["POST", "/v1/streams/s/records", '{"records":[{"body":"f"}],"match_seq_num":0.9999999999999999999}'],
      ["POST", "/v1/streams/s/records", '{"records":[{"body":"f","timestamp":4503599627370497.5}]}'],
      ["PATCH", "/v1/streams/s", '{"retention_policy":{"age":86399.99999999999999}}'],
    ] as const;
    for (const [method, path, text] of cases) {
      const r = await raw(method, path, text);
      expect([text, r.status, r.json().code]).toEqual([text, 400, "bad_json"]);
      expect(r.json().message).toMatch(/is not an integer \(it would be rounded to \d+\)/);
    }
    expect(await tail()).toBe(1);
    expect((await liteClient(lite).call("GET", "/v1/streams/s", { basin })).json().retention_policy).toEqual({
      age: 3600,
    });
  });

  it("integers written with a fraction or an exponent still pass", async () => {
    expect(
      (await raw("POST", "/v1/streams/s/records", '{"records":[{"body":"g","timestamp":2e12}],"match_seq_num":1.0}'))
        .status,
    ).toBe(200);
    const back = (await liteClient(lite).call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 1 } })).json()
      .records[0];
    expect([back.seq_num, back.timestamp, back.body]).toEqual([1, 2_000_000_000_000, "g"]);
  });

  it("are refused by svc append --format json and svc apply, exit 7, one line", async () => {
    const env = cliEnv(lite);
    const before = await tail();
    const r = await runSvc(["append", `svc://${basin}/s`, "--format", "json"], {
      stdin: '{"body":"cf","timestamp":4503599627370497.5}\n',
      env,
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("4503599627370497.5 would be rounded");
    expect(
      r.stderr
        .trim()
        .split("\n")
        .filter((l) => !l.startsWith("hint:")),
    ).toHaveLength(1);
    expect(await tail()).toBe(before);

    const spec = join(work, "spec.json");
    writeFileSync(
      spec,
      JSON.stringify({
        basins: [{ name: basin, streams: [{ name: "s", config: { retention_policy: { age: 1 } } }] }],
      }).replace('"age":1', '"age":86399.99999999999999'),
    );
    const a = await runSvc(["apply", "-f", spec, "--dry-run"], { env });
    expect(a.code).toBe(7);
    expect(a.stderr).toContain("86399.99999999999999 is not an integer");
  });
});
