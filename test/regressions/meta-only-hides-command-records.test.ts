/**
 * Bug (user trial): `svc read URI --meta-only --format json` printed a fence or trim record as
 * `{"seq_num":1,"timestamp":…}`, like any data record: its headers, which say it is a command,
 * were dropped with the body.
 *
 * Expected: with --meta-only a command record carries `"command": "fence"` (or `"trim"`), so
 * the listing of positions still tells data from commands.
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

describe("--meta-only and command records", () => {
  it("a command record says it is one", async () => {
    const uri = await d.newStream("meta");
    expect((await d.svc(["append", uri, "data"])).code).toBe(0);
    expect((await d.svc(["fence", uri, "writer-1"])).code).toBe(0);
    const r = await d.svc(["read", uri, "-s", "0", "-e", "--meta-only", "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => Object.keys(l))).toEqual([
      ["seq_num", "timestamp"],
      ["seq_num", "timestamp", "command"],
    ]);
    expect(lines[1]!.command).toBe("fence");
  });
});
