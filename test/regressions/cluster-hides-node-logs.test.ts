/**
 * Issue 45 (item 10): `npm run cluster` kept the nodes' logs to itself (it showed them only when
 * a node failed to start), so what docs/multi-node.md tells an operator to watch (which node
 * runs the sweep, lost notifications, draining) never showed; and a node killed by a signal was
 * reported as "exited (null)". Now each node's log lines reach the script's stderr prefixed
 * with the node's port, and a node's end says its exit code or the signal that killed it.
 */
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { type ClusterRun, startClusterScript } from "../helpers/cluster-script.js";
import { freePort } from "../helpers/free-port.js";
import { eventually } from "../helpers/lite.js";

let run: ClusterRun | undefined;

afterAll(async () => {
  await run?.interrupt();
});

describe("npm run cluster's stderr", () => {
  it("carries the nodes' logs, and says which signal killed a node", async () => {
    const first = await freePort();
    run = await startClusterScript(["--nodes", "2", "--port", String(first)]);
    // One node leads the sweep and says so; its line names it.
    await eventually(async () => /^\[node \d+\] .*this node now runs the periodic sweep/m.test(run!.err()), 20_000);
    const pid = Number(
      spawnSync("pgrep", ["-f", `svc.js lite .*--port ${first + 1} `])
        .stdout.toString()
        .trim(),
    );
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    await eventually(
      async () => run!.err().includes(`node http://127.0.0.1:${first + 1} was killed by SIGKILL`),
      20_000,
    );
    expect(run.err()).not.toContain("exited (null)");
    expect(await run.interrupt()).toBe(130);
    run = undefined;
  }, 180_000);
});
