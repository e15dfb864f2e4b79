/**
 * Found by a CLI probe (hang): a read session aborted while its request was still opening
 * never noticed: the abort listener was added after the abort had fired. So `svc read
 * --idle-timeout 0` (the idle timer fires at once) followed forever and ignored the first
 * Ctrl-C, and `svc bench --duration 0` hung in its drain (its live reader was stopped while
 * opening). Now a session whose signal is already aborted closes as soon as it opens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
let env: Record<string, string>;
const basin = `abort-opening-${process.pid}`;

beforeAll(async () => {
  lite = await startLite({ inMemory: true });
  env = cliEnv(lite);
  const c = liteClient(lite);
  await createStreams(lite, basin, ["s"]);
  expect((await c.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "a" }] } })).status).toBe(
    200,
  );
});

afterAll(async () => {
  await lite?.stop();
});

describe("a read stopped while it opens", () => {
  it("svc read --idle-timeout 0 ends (exit 0) instead of following forever", async () => {
    const r = await runSvc(["read", `svc://${basin}/s`, "--idle-timeout", "0"], { env, timeoutMs: 15_000 });
    expect(r.code).toBe(0);
  });

  it("svc bench --duration 0 ends, verified, and removes its stream", async () => {
    const r = await runSvc(["bench", basin, "--duration", "0", "--catchup-delay", "0s", "--json"], {
      env,
      timeoutMs: 20_000,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).verified).toBe(true);
    const streams = (await liteClient(lite).call("GET", "/v1/streams", { basin }))
      .json()
      .streams.filter((s: { deleted_at: unknown }) => !s.deleted_at);
    expect(streams.map((s: { name: string }) => s.name)).toEqual(["s"]);
  });
});
