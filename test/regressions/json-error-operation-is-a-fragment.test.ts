/**
 * Bug (user trial): with `--json`, an error's `operation` was a sentence fragment taken from
 * the human line ("check tail of", "list basins"), which a script cannot map to a command.
 *
 * Expected: `operation` is the command's name as typed in svc's terms (`check-tail`,
 * `basin list`, `stream create`), whatever alias was used.
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

const jsonError = (stderr: string): { operation: string; exit_code: number } =>
  (JSON.parse(stderr.trim().split("\n").at(-1)!) as { error: { operation: string; exit_code: number } }).error;

describe("--json errors name the command", () => {
  it.each([
    [["check-tail", "svc://BASIN/missing"], "check-tail"],
    [["stream", "get", "svc://BASIN/missing"], "stream get"],
    [["get-stream-config", "svc://BASIN/missing"], "get-stream-config"],
    [["read", "svc://BASIN/missing", "-s", "0", "-e"], "read"],
  ])("svc %j", async (args, operation) => {
    const r = await d.svc([...args.map((a) => a.replace("BASIN", d.basin)), "--json"]);
    expect(r.code).toBe(4);
    expect(jsonError(r.stderr).operation).toBe(operation);
  });
});
