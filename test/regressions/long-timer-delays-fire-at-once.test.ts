/**
 * Found by a bad-input probe: setTimeout fires after 1 ms (with a TimeoutOverflowWarning) for
 * any delay past 2^31 - 1 ms, about 24.8 days. A read session with `wait` above that (the
 * protocol allows up to 2^32 - 1 s) made lite's follower wake every millisecond for as long
 * as it waited; and svc with `--timeout 25d` failed every request at once ("no response
 * within 2160000000 ms", exit 6). Every timer whose delay comes from outside is now capped.
 */
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `timers-${process.pid}`;

beforeAll(async () => {
  lite = await startLite();
  await createStreams(lite, basin, ["s"]);
});

afterAll(async () => {
  await lite?.stop();
});

describe("delays past setTimeout's limit", () => {
  it("a read session waiting longer than 24.8 days follows quietly and still delivers", async () => {
    const conn = connect(lite.url);
    const req = conn.request({
      ":path": "/v1/streams/s/records?tail_offset=0&wait=4294967295",
      authorization: `Bearer ${lite.token}`,
      "svc-basin": basin,
      "content-type": "svc/proto",
    });
    let bytes = 0;
    req.on("data", (d: Buffer) => {
      bytes += d.length;
    });
    await new Promise((r) => req.once("response", r));
    await new Promise((r) => setTimeout(r, 500)); // following, its idle timer armed
    const before = bytes;
    expect(
      (await liteClient(lite).call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "later" }] } }))
        .status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(bytes).toBeGreaterThan(before + 5); // the record came through
    req.close();
    conn.close();
    expect(lite.stderr()).not.toContain("TimeoutOverflowWarning");
  });

  it("svc --timeout 25d waits as long as it needs instead of failing at once", async () => {
    const r = await runSvc(["basin", "list", "--timeout", "25d"], { env: cliEnv(lite) });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain(basin);
  });
});
