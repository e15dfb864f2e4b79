/**
 * Found by a second security review: stream and basin names reached lite's own log raw. A
 * tenant with `create-stream` named a stream `x deleted\nsvc lite: SIGTERM: shutting down\n…`
 * followed by `\e]0;OWNED\a`, with `delete_on_empty`: when the sweep deleted it, the log showed
 * forged lines and the operator's terminal obeyed the escape (window title). Names also reach
 * the log from a store recovering a stream, a node re-reading one, `--init-file` and request
 * paths. Now every name in a log line is quoted and JSON-escaped by one rule (lite/log.ts
 * `quoted`), and every log line has the characters a terminal obeys (C0 but newline and tab,
 * DEL, C1, line separators, bidirectional controls) escaped as `\uXXXX`. On lmdb and on
 * PostgreSQL (where the sweep runs too).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually, type Lite, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";
import { scratchDir } from "../helpers/scratch.js";

const EVIL =
  "x deleted\nsvc lite: SIGTERM: shutting down\nsvc lite: stopped\u001b]0;OWNED\u0007 \u009b31m \u202etxt.exe";
/** What the log may never hold raw: ESC, BEL, C1 CSI, RIGHT-TO-LEFT OVERRIDE. */
const RAW = /[\u001b\u0007\u009b\u202e]/;

/** Lines of the log that do not begin with the prefix of a line lite wrote itself. */
function forged(stderr: string): string[] {
  return stderr.split("\n").filter((l) => /^svc lite: (SIGTERM|stopped)/.test(l));
}

describe.each(["lmdb", "postgres"] as const)("a stream named to forge log lines, on %s", (storage) => {
  let lite: Lite;
  let drop: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await lite?.stop();
    await drop?.();
  });

  it("is logged quoted and escaped when the sweep deletes it", async () => {
    const env = { SVC_LITE_SWEEP_MS: "100" };
    if (storage === "postgres") {
      const db = await freshDatabase();
      drop = db.drop;
      lite = await startLite({ postgres: db.url, env });
    } else lite = await startLite({ env });
    const c = liteClient(lite);
    const basin = uniqueBasin("logs");
    expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    const made = await c.call("POST", "/v1/streams", {
      basin,
      json: { stream: EVIL, config: { retention_policy: { age: 1 }, delete_on_empty: { min_age_secs: 1 } } },
    });
    expect(made.status, made.text()).toBe(201);
    const path = `/v1/streams/${encodeURIComponent(EVIL)}/records`;
    expect((await c.call("POST", path, { basin, json: { records: [{ body: "a" }] } })).status).toBe(200);
    await eventually(async () => lite.stderr().includes("delete-on-empty: stream"), 20_000);
    const log = lite.stderr();
    expect(log).toContain(
      `delete-on-empty: stream ${JSON.stringify(basin)}/"x deleted\\nsvc lite: SIGTERM: shutting down`,
    );
    expect(log).toContain("\\u001b]0;OWNED\\u0007 \\u009b31m \\u202etxt.exe");
    expect(forged(log)).toEqual([]);
    expect(RAW.test(log)).toBe(false);
  }, 60_000);
});

describe("names in lines at start", () => {
  let lite: Lite;
  afterAll(async () => {
    await lite?.stop();
  });

  it("--init-file: a stream's name is quoted and escaped", async () => {
    const file = join(scratchDir("svc-init-"), "spec.json");
    const basin = uniqueBasin("init");
    writeFileSync(file, JSON.stringify({ basins: [{ name: basin, streams: [{ name: EVIL }] }] }));
    lite = await startLite({ inMemory: true, args: ["--init-file", file] });
    await eventually(async () => lite.stderr().includes("listening on"));
    const log = lite.stderr();
    expect(log).toContain(`init file: basin ${JSON.stringify(basin)}: created`);
    expect(log).toContain(`init file: stream ${JSON.stringify(basin)}/"x deleted\\nsvc lite: SIGTERM`);
    expect(forged(log)).toEqual([]);
    expect(RAW.test(log)).toBe(false);
  });
});
