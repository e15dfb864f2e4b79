/**
 * Found by a CLI probe (wrong exit code): `svc check-tail --time-format iso` on a stream whose
 * last timestamp lies past what a Date holds (lite accepts up to 2^53 - 1 with uncapped
 * timestamping) failed with "error: Invalid time value", exit 1; `svc read --time-format iso`
 * prints such a timestamp as its number. And `svc token create --expires-in 280000y` failed
 * the same way (exit 1) instead of as a usage error. Now check-tail prints the number, and the
 * expiry is refused with exit 2.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
let env: Record<string, string>;
const basin = `tail-iso-${process.pid}`;

beforeAll(async () => {
  lite = await startLite({ inMemory: true });
  env = cliEnv(lite);
  const c = liteClient(lite);
  await createStreams(lite, basin, { s: { timestamping: { uncapped: true } } });
  expect(
    (
      await c.call("POST", "/v1/streams/s/records", {
        basin,
        json: { records: [{ body: "m", timestamp: 9007199254740991 }] },
      })
    ).status,
  ).toBe(200);
});

afterAll(async () => {
  await lite?.stop();
});

describe("timestamps past what a Date holds", () => {
  it("svc check-tail --time-format iso prints the number", async () => {
    const r = await runSvc(["check-tail", `svc://${basin}/s`, "--time-format", "iso"], { env });
    expect([r.code, r.stdout.trim(), r.stderr]).toEqual([0, "1 @ 9007199254740991", ""]);
    const j = await runSvc(["check-tail", `svc://${basin}/s`, "--time-format", "iso", "--json"], { env });
    expect(JSON.parse(j.stdout)).toEqual({ seq_num: 1, timestamp: "9007199254740991" });
  });

  it("svc token create --expires-in 280000y is a usage error (exit 2)", async () => {
    const r = await runSvc(["token", "create", "far", "--ops", "read", "--expires-in", "280000y"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--expires-in");
  });
});
