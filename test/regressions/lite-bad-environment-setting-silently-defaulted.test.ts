/**
 * Bug: a setting of svc lite given in the environment with a value that does not read was
 * silently replaced by its default. `SVC_LITE_SWEEP_MS=2s svc lite` swept every 2000 ms
 * without a word (so did 0, for most of them), `SVC_LITE_APPEND_BUDGET_BYTES=8MiB` left the
 * budget at 128 MiB, `SVC_LITE_THREAD=mian` served on the server thread: whoever set them
 * believed a setting was in force that was not. Each module parsed its own variables, each with
 * its own fallback.
 *
 * Reproduced by starting the built `svc lite --in-memory --port 0` with each bad value: it
 * started and served. Expected (what a bad flag already gets): exit 2 before anything listens,
 * with one line naming the variable, what it takes and the value given, and nothing on stdout.
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

describe("svc lite refuses a setting in its environment that does not read", () => {
  it.each([
    ["SVC_LITE_SWEEP_MS", "2s", /SVC_LITE_SWEEP_MS must be a whole number of milliseconds, at least 1, got "2s"/],
    ["SVC_LITE_SWEEP_MS", "0", /SVC_LITE_SWEEP_MS must be a whole number of milliseconds, at least 1, got "0"/],
    ["SVC_LITE_DELETE_GRACE_MS", "-5", /SVC_LITE_DELETE_GRACE_MS must be a whole number of milliseconds/],
    ["SVC_LITE_APPEND_BUDGET_BYTES", "8MiB", /SVC_LITE_APPEND_BUDGET_BYTES must be a whole number of bytes/],
    ["SVC_LITE_THREAD", "mian", /SVC_LITE_THREAD must be worker or main, got "mian"/],
  ])("%s=%s", async (name, value, message) => {
    const r = await runSvc(["lite", "--in-memory", "--port", "0"], { env: { [name]: value }, timeoutMs: 10_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/^error: svc lite: .*\nhint: run `svc lite --help` for usage\n$/);
    expect(r.stdout).toBe("");
  });

  it("an empty variable counts as unset, not as a bad value", async () => {
    const r = await runSvc(["lite", "--in-memory", "--port", "0", "--help"], { env: { SVC_LITE_SWEEP_MS: "" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: svc lite/);
  });
});
