/**
 * Bug (user trial): a typo of a config key (`acount_endpoint`), a `--format` value (`jsn`) or a
 * duration unit (`5minz`) got a list of what exists, or nothing, but no did-you-mean, as
 * commands and token operations do; each place compared names its own way.
 *
 * Expected: one rule (format/suggest.ts) offers the nearest name everywhere a name is typed.
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

const offline = { SVC_ACCOUNT_ENDPOINT: "http://127.0.0.1:9", SVC_BASIN_ENDPOINT: "http://127.0.0.1:9" };

describe("did-you-mean for typed names", () => {
  it.each([
    [["config", "get", "acount_endpoint"], 'unknown config key "acount_endpoint"; did you mean account_endpoint?'],
    [["read", "svc://my-basin-01/s", "--format", "jsn"], 'unknown --format "jsn"; did you mean json?'],
    [["read", "svc://my-basin-01/s", "--idle-timeout", "5minz"], 'unknown unit in "5minz"; did you mean min'],
    [["token", "create", "t", "--ops", "apend"], 'unknown operation "apend"; did you mean append?'],
  ])("svc %j", async (args, message) => {
    const r = await runSvc(args, { env: offline });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
