/**
 * The README's first minutes, walked as a new user walks them: a fresh clone of this commit,
 * `npm ci && npm start` (svc lite on its default address, 127.0.0.1:4243, data in the user's
 * default data directory), then, in a second shell with nothing configured, every command of
 * the Quick start and of "The first five minutes" as written (`svc` is what `npm link` puts on
 * the PATH). Nothing is set but HOME and PATH, so svc finds the server and its token by
 * itself. Needs the npm registry (as CI's own `npm ci`) and the default port free.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/lite.js";
import { readmeCommands } from "../helpers/readme.js";
import { scratchDir } from "../helpers/scratch.js";

const ROOT = resolve(import.meta.dirname, "../..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The Quick start's commands, up to the end of "The first five minutes". */
function firstMinutes(): string[] {
  const from = README.indexOf("## Quick start");
  const to = README.indexOf("## What people do most");
  return readmeCommands(README.slice(from, to));
}

let server: ReturnType<typeof spawn> | undefined;
afterAll(async () => {
  if (server?.pid !== undefined && server.exitCode === null) {
    process.kill(-server.pid, "SIGINT");
    await new Promise((r) => server!.once("close", r));
  }
});

const portFree = (): boolean =>
  spawnSync(process.execPath, [
    "-e",
    "require('net').createServer().once('error',()=>process.exit(1)).listen(4243,'127.0.0.1',function(){this.close()})",
  ]).status === 0;

describe("a new user's first minutes, from a fresh clone", () => {
  it("npm ci && npm start, then the Quick start and the first five minutes as written", async () => {
    expect(portFree(), "the walk needs 127.0.0.1:4243, svc lite's default address").toBe(true);
    const dir = scratchDir("svc-walk-");
    const clone = join(dir, "svc");
    const home = join(dir, "home");
    const head = spawnSync("git", ["-C", ROOT, "rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim();
    expect(spawnSync("git", ["clone", "-q", ROOT, clone]).status).toBe(0);
    expect(spawnSync("git", ["-C", clone, "checkout", "-q", head]).status).toBe(0);
    spawnSync("mkdir", ["-p", join(home, "bin")]);
    const env = { PATH: `${join(home, "bin")}:${process.env.PATH ?? ""}`, HOME: home };
    const ci = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: clone, env, encoding: "utf8" });
    expect(ci.status, ci.stderr.slice(-2000)).toBe(0);
    // A fresh clone installs without warnings (package.json's allowScripts answers npm's question).
    expect(ci.stderr).not.toMatch(/npm warn/i);

    server = spawn("npm", ["start"], { cwd: clone, env, detached: true });
    let out = "";
    server.stdout!.setEncoding("utf8").on("data", (s: string) => (out += s));
    server.stderr!.resume();
    await eventually(async () => out.includes("export SVC_ACCESS_TOKEN="), 240_000, 250);
    expect(out).toContain("export SVC_ACCOUNT_ENDPOINT=http://127.0.0.1:4243");

    // `npm link` puts svc on the PATH: here, a shim to the clone's bin/svc.js.
    writeFileSync(join(home, "bin", "svc"), `#!/bin/sh\nexec node "${clone}/bin/svc.js" "$@"\n`, { mode: 0o755 });
    const cmds = firstMinutes();
    expect(cmds).toContain("svc ping"); // `node bin/svc.js ping` as written: svc is the same file
    const outputs: string[] = [];
    for (const cmd of cmds) {
      const follow = /\s-f(\s|$)/.test(cmd);
      const r = spawnSync("bash", ["-o", "pipefail", "-c", `${follow ? "timeout -s INT 3 " : ""}${cmd}`], {
        cwd: clone,
        env,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect([cmd, r.status], r.stderr).toEqual([cmd, 0]);
      outputs.push(r.stdout);
    }
    const all = outputs.join("");
    expect(all).toContain("hello\n");
    expect(all).toContain('"body":"three"');
  }, 600_000);
});
