/**
 * Bug (user trial): `{"timestamp":9007199254740993}` was refused with "got 9007199254740992":
 * the message echoed the value as JSON.parse rounded it, not as given, and did not say what
 * the limit is.
 *
 * Now an error about a number echoes it as written and states the real limit
 * (9007199254740991, 2^53 − 1), for JSON input, flags, input templates and the JSON a server
 * receives (lite's 422 echoes it too).
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { createStreams, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";

const LIMIT = "above 9007199254740991 (2^53 − 1), the largest integer svc carries exactly";
const offline = {
  SVC_ACCOUNT_ENDPOINT: "http://127.0.0.1:9",
  SVC_BASIN_ENDPOINT: "http://127.0.0.1:9",
  SVC_ACCESS_TOKEN: "t0k3n-for-tests",
};

describe("a number beyond 2^53 − 1 in an error", () => {
  it("is echoed as given in JSON input, flags and input templates", async () => {
    const json = await runSvc(["append", "svc://some-basin/s", "--format", "json", "--dry-run"], {
      stdin: '{"timestamp":9007199254740993}\n',
      env: offline,
    });
    expect(json.code).toBe(7);
    expect(json.stderr).toContain(`stdin:1: "timestamp" is 9007199254740993, ${LIMIT}`);
    expect(json.stderr).not.toContain("9007199254740992");
    const flag = await runSvc(["read", "svc://some-basin/s", "--timestamp", "9007199254740993"], { env: offline });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(`--timestamp: 9007199254740993 is ${LIMIT}`);
    const tpl = await runSvc(["append", "svc://some-basin/s", "--input-template", "%T %v", "--dry-run"], {
      stdin: "9007199254740993 x\n",
      env: offline,
    });
    expect(tpl.code).toBe(7);
    expect(tpl.stderr).toContain(`timestamp 9007199254740993 is ${LIMIT}`);
  });

  it("is echoed as given by lite", async () => {
    const lite = await startLite();
    try {
      const basin = uniqueBasin("num");
      await createStreams(lite, basin, ["s"]);
      const r = await liteClient(lite).call("POST", "/v1/streams/s/records", {
        basin,
        body: '{"records":[{"timestamp":9007199254740993,"body":"x"}]}',
        headers: { "content-type": "application/json" },
      });
      expect(r.status).toBe(422);
      expect(r.text()).toContain("9007199254740993");
      expect(r.text()).not.toContain("9007199254740992");
    } finally {
      await lite.stop();
    }
  });
});
