/**
 * The client package installed as a user installs it: `npm install` of the packed
 * `svc-client` tarball into an empty project, its dependencies from the npm registry (a cache
 * of the test's own, in its temp dir), then the checks of library-package.e2e against what npm
 * put there: what it installed (three packages: svc-client, protobufjs, long; no optional
 * peer), its size, a program talking to a real lite, and a TypeScript consumer.
 * Extended tier: it needs the registry (CI reaches it; the default tier stays offline).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packClient, ROOT, run, typeCheck, USE, USE_EXPECTED } from "../helpers/client-package.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let lite: Lite;
let project: string;
let installedPackages: string[];

async function install(): Promise<void> {
  const dir = scratchDir("svc-client-install-");
  const packed = await packClient(dir);
  project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const npm = (args: string[]) =>
    run("npm", [...args, `--cache=${join(dir, "cache")}`, `--logs-dir=${join(dir, "logs")}`], {
      cwd: project,
      maxBuffer: 64 << 20,
    });
  await npm(["install", "--no-audit", "--no-fund", "--ignore-scripts", packed.tarball]);
  const ls = await npm(["ls", "--all", "--parseable"]);
  // The first line is the project itself.
  installedPackages = ls.stdout
    .trim()
    .split("\n")
    .slice(1)
    .map((p) => p.slice(p.lastIndexOf("node_modules/") + "node_modules/".length))
    .sort();
}

beforeAll(async () => {
  [lite] = await Promise.all([startLite(), install()]);
}, 180_000);
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

describe("npm install of the packed svc-client into an empty project", () => {
  it("installs three packages: the client, protobufjs and long", () => {
    const bytes = Number(
      execFileSync("du", ["-sb", join(project, "node_modules")], { encoding: "utf8" }).split("\t")[0],
    );
    console.log(`npm install svc-client: ${installedPackages.length} packages, ${bytes} bytes in node_modules`);
    expect(installedPackages).toEqual(["long", "protobufjs", "svc-client"]);
    expect(bytes).toBeLessThan(6 << 20);
  });

  it("runs a program against lite, and type-checks a consumer", async () => {
    writeFileSync(join(project, "use.mjs"), USE);
    const { stdout } = await run(process.execPath, ["use.mjs", lite.url, lite.token, uniqueBasin("inst")], {
      cwd: project,
    });
    expect(JSON.parse(stdout)).toEqual(USE_EXPECTED);
    // Node's types are the consumer's own business: linked from this repo, not installed.
    mkdirSync(join(project, "node_modules/@types"), { recursive: true });
    execFileSync("ln", ["-s", join(ROOT, "node_modules/@types/node"), join(project, "node_modules/@types/node")]);
    expect(await typeCheck(project)).toEqual({ code: 0, out: "" });
  }, 60_000);
});
