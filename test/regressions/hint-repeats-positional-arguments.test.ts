/**
 * Bug (user trial): the usage hint was built from the first words of argv, so it repeated
 * positional arguments: `svc diff my-basin-01` said ``run `svc diff my-basin-01 --help` `` and
 * `svc bench Bad_Name` said ``run `svc bench Bad_Name --help` ``, commands that do not print
 * help. The hint now names the command found in the command tree, never an argument.
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

const UNREACHABLE = {
  SVC_ACCOUNT_ENDPOINT: "http://127.0.0.1:9",
  SVC_BASIN_ENDPOINT: "http://127.0.0.1:9",
  SVC_RETRIES: "0",
};

describe("usage hints name the command only", () => {
  it.each([
    [["bench", "Bad_Name"], "svc bench"],
    [["diff", "my-basin-01"], "svc diff"],
    [["--timeout", "5s", "basin", "create", "Bad_Name", "--storage-class", "express"], "svc basin create"],
    [["fence", "svc://my-basin-01"], "svc fence"],
  ])("svc %j → hint for `%s --help`", async (args, path) => {
    const r = await runSvc(args, { env: UNREACHABLE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`hint: run \`${path} --help\` for usage`);
  });
});
