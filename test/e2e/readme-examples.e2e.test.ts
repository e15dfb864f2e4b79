/**
 * The shell examples (```sh blocks) of the README and of the guides under docs/ run, page after
 * page in the order of PAGES, against a lite started here, so an example that does not run, or
 * that loses data, fails CI. Each command runs in its own bash in a scratch directory holding
 * the files the examples name (a.jsonl, photo.jpg, spec.json = the spec in docs/specs.md), with
 * `svc` on PATH. Skipped: `npm …` and plain `export VAR=value` lines (the test sets the
 * environment); following commands (`-f`) run for 1.5 s and are then interrupted, and must
 * have printed no error by then.
 * Blocks that cannot run here (a server, a PostgreSQL) are written as plain ``` blocks.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { svcShim } from "../helpers/cli.js";
import { type Lite, startLite } from "../helpers/lite.js";
import { readmeCommands } from "../helpers/readme.js";
import { scratchDir } from "../helpers/scratch.js";

const ROOT = resolve(import.meta.dirname, "../..");
/** The pages whose examples run, in this order (later pages use what earlier ones made). */
const PAGES = [
  "README.md",
  "docs/resources.md",
  "docs/records.md",
  "docs/consumers.md",
  "docs/specs.md",
  "docs/monitoring.md",
  "docs/configuration.md",
  "docs/conventions.md",
  "docs/exit-codes.md",
  "docs/s2.md",
  "docs/performance.md",
  "docs/server.md",
];
const page = (p: string): string => readFileSync(join(ROOT, p), "utf8");

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
  const spec = /The spec \(JSON[^\n]*\n\n```json\n([\s\S]*?)^```/m.exec(page("docs/specs.md"));
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
  const follow = /\s-f(\s|$)/.test(cmd) ? "timeout -s INT 1.5 " : "";
  const r = spawnSync("bash", ["-o", "pipefail", "-c", `${follow}${cmd}`], {
    cwd: dir,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the examples of the README and the guides", () => {
  it("finds the examples", () => {
    const cmds = readmeCommands(page("README.md"));
    expect(cmds.length).toBeGreaterThan(15);
    expect(cmds).toContain("svc basin create my-basin-01 --create-stream-on-append");
    expect(readmeCommands(page("docs/records.md")).length).toBeGreaterThan(10);
  });

  it("every page with shell examples is one whose examples run here", () => {
    const pages = ["README.md", ...readdirSync(join(ROOT, "docs")).map((n) => `docs/${n}`)].filter((p) =>
      p.endsWith(".md"),
    );
    const withExamples = pages.filter((p) => readmeCommands(page(p)).length > 0);
    expect(withExamples.filter((p) => !PAGES.includes(p))).toEqual([]);
  });

  it("run as written against lite, in order, and copying a stream keeps every data record", () => {
    const failures: string[] = [];
    for (const p of PAGES) {
      for (const cmd of readmeCommands(page(p))) {
        const r = sh(cmd);
        if (!allowed(cmd).includes(r.code ?? -1) || /^error:/m.test(r.stderr))
          failures.push(`${p}: ${cmd}\n  exit ${r.code}: ${r.stderr.trim().split("\n").slice(0, 3).join(" | ")}`);
      }
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
    expect(data("svc://my-basin-01/events-backup")).toEqual(source); // the last copy, docs/records.md's
  }, 180_000);
});
