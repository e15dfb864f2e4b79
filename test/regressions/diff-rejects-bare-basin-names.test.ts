/**
 * Bug (user trial): `svc diff my-basin-01 my-basin-02` was refused ("is not a svc:// URI")
 * although everywhere else a basin may be named bare. Now a bare name is a basin on either
 * side; a bare name with a slash is refused with how to write a stream.
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

describe("svc diff with bare basin names", () => {
  it("compares two basins named bare, and a stream with a bare basin", async () => {
    const other = `${d.basin}-b`;
    expect((await d.svc(["basin", "create", other, "--retention", "1d"])).code).toBe(0);
    const r = await d.svc(["diff", d.basin, other, "--exit-code"]);
    expect(r.code, r.stderr).toBe(10);
    expect(r.stdout).toBe(
      `--- svc://${d.basin}\n+++ svc://${other}\n~ default_stream_config.retention_policy: 1w → 1d\n`,
    );
    const uri = await d.newStream("x");
    const s = await d.svc(["diff", uri, d.basin, "--exit-code"]);
    expect(s.code, s.stderr).toBe(0);
  });

  it("a bare name with a slash says how to write a stream", async () => {
    const r = await d.svc(["diff", `${d.basin}/x`, d.basin]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("write a stream as svc://basin/stream");
  });
});
