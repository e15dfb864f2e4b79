/**
 * Issue 45 (item 4): once a node of `npm run cluster` had died, Ctrl-C never finished and left
 * the PostgreSQL (300 MB of data dir) and the root token in the temp dir: stop() waited for the
 * dead node's exit event, which had already fired, as it took a null exit code for "still
 * running" (a child killed by a signal has a null exit code). Now each node's end is awaited
 * from its start, and Ctrl-C stops everything the script started whatever happened to a node.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type ClusterRun, clusterTempDir, startClusterScript } from "../helpers/cluster-script.js";
import { freePort } from "../helpers/free-port.js";
import { eventually } from "../helpers/lite.js";

let run: ClusterRun | undefined;

afterAll(async () => {
  await run?.interrupt();
});

/** The pid of the node listening on `port` (its command line names the port). */
function nodePid(port: number): number {
  const found = spawnSync("pgrep", ["-f", `svc.js lite .*--port ${port} `], { encoding: "utf8" }).stdout.trim();
  expect(found.split("\n")).toHaveLength(1);
  return Number(found);
}

describe("npm run cluster, after a node was killed", () => {
  it("stops everything it started on Ctrl-C and leaves nothing in the temp dir", async () => {
    const own = clusterTempDir("cluster-killed-node-tmp-");
    const first = await freePort();
    run = await startClusterScript(["--nodes", "2", "--port", String(first)], {
      env: { ...process.env, TMPDIR: own },
    });
    process.kill(nodePid(first), "SIGKILL");
    await eventually(async () => run!.err().includes(`node http://127.0.0.1:${first} `), 20_000);
    expect(await run.interrupt(30_000)).toBe(130);
    run = undefined;
    expect(spawnSync("pgrep", ["-f", `--port ${first + 1} `]).stdout.toString()).toBe("");
    expect(readdirSync(own)).toEqual([]);
  }, 180_000);
});
