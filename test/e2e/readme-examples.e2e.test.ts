/**
 * The README's shell examples (its ```sh blocks) run, in order, against a lite started here,
 * so an example that does not run, or that loses data, fails CI. Each command runs
 * in its own bash in a scratch directory holding the files the examples name (a.jsonl,
 * photo.jpg, spec.json = the README's spec), with `svc` on PATH. Skipped: `npm …` and plain
 * `export VAR=value` lines (the test sets the environment); following commands (`-f`) run for
 * a few seconds and are then interrupted.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SVC_BIN, svcShim } from "../helpers/cli.js";
import { startLite, type Lite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const README = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8");

/** The runnable commands of the ```sh blocks: continuations joined, trailing comments dropped. */
export function readmeCommands(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)) {
    const joined = m[1]!.replace(/\\\n\s*/g, " ");
    for (const raw of joined.split("\n")) {
      const line = raw.replace(/\s{2,}#\s.*$/, "").trim();
      if (line === "" || line.startsWith("#") || line.startsWith("npm ")) continue;
      if (/^export \w+=[^$]*$/.test(line)) continue;
      out.push(line.replaceAll("node bin/svc.js", "svc"));
    }
  }
  return out;
}

/** Exit codes an example may document instead of 0. */
function allowed(cmd: string): number[] {
  if (cmd.includes("--exit-code")) return [0, 10];
  if (/\s-f(\s|$)/.test(cmd)) return [0, 124, 130];
  return [0];
}

let lite: Lite;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  lite = await startLite();
  dir = scratchDir("svc-readme-");
  const bin = join(dir, "bin");
  spawnSync("mkdir", ["-p", bin, join(dir, "home")]);
  svcShim(bin);
  writeFileSync(join(dir, "a.jsonl"), '{"headers": [["type", "greeting"]], "body": "hi"}\n{"body": "there"}\n');
  writeFileSync(join(dir, "photo.jpg"), randomBytes(50_000));
  const spec = /The spec \(JSON[^\n]*\n\n```json\n([\s\S]*?)^```/m.exec(README);
  writeFileSync(join(dir, "spec.json"), spec![1]!);
  env = {
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "home", ".config"),
    FORCE_COLOR: "0",
    SVC_ACCOUNT_ENDPOINT: lite.url,
    SVC_BASIN_ENDPOINT: lite.url,
    SVC_ACCESS_TOKEN: lite.token,
  };
}, 60_000);
afterAll(async () => {
  await lite?.stop();
});

function sh(cmd: string): { code: number | null; stdout: string; stderr: string } {
  const follow = /\s-f(\s|$)/.test(cmd) ? "timeout -s INT 3 " : "";
  const r = spawnSync("bash", ["-o", "pipefail", "-c", `${follow}${cmd}`], {
    cwd: dir,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the README's examples", () => {
  it("finds the examples", () => {
    const cmds = readmeCommands(README);
    expect(cmds.length).toBeGreaterThan(15);
    expect(cmds).toContain("svc basin create my-basin-01 --create-stream-on-append");
  });

  it("run as written against lite, in order, and copying a stream keeps every data record", () => {
    const failures: string[] = [];
    for (const cmd of readmeCommands(README)) {
      const r = sh(cmd);
      if (!allowed(cmd).includes(r.code ?? -1))
        failures.push(`${cmd}\n  exit ${r.code}: ${r.stderr.trim().split("\n").slice(0, 3).join(" | ")}`);
    }
    expect(failures).toEqual([]);
    const data = (uri: string) =>
      sh(`svc read ${uri} --from-beginning -e --format json-base64 --commands skip`)
        .stdout.split("\n")
        .filter((l) => l !== "")
        .map((l) => {
          const o = JSON.parse(l) as { headers: unknown; body: string };
          return JSON.stringify([o.headers, o.body]);
        });
    const source = data("svc://my-basin-01/events");
    expect(source.length).toBeGreaterThan(2);
    expect(data("svc://my-basin-01/events-copy")).toEqual(source);
  }, 180_000);
});
