/**
 * The client package, `svc-client` (docs/library.md), as a user gets it: built and packed with
 * `npm pack ./packages/client`, unpacked into a project of its own under a temp dir, with what
 * npm would install beside it linked from this repo's node_modules (the closure of the
 * dependencies its manifest declares: nothing is downloaded; the extended tier's
 * client-install e2e installs it from the registry), and then:
 * - the package is the client alone: one declaration file, two packages in all (itself and
 *   protobufjs with its one dependency), none of the CLI's or the server's;
 * - plain Node imports it and talks to a real lite through the public API only; a deep import
 *   is refused, and the optional undici, not installed, is asked for by name;
 * - tsc type-checks a consumer against its declarations: the options are the documented ones
 *   (an unknown one, the transport and the lite proof are errors), the client tree's objects
 *   cannot be constructed, lite's encoded batches are not in the types, deep imports do not
 *   resolve.
 * The temp dir, tarball included, is removed afterwards.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Packed, packClient, ROOT, run, typeCheck, USE, USE_EXPECTED } from "../helpers/client-package.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

interface Manifest {
  dependencies?: Record<string, string>;
}

/** The packages npm installs for `deps`: each one's own dependencies too, as this repo resolved them. */
function closure(deps: string[], from = ROOT): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (name: string, dir: string): void => {
    // Node's resolution: the nearest node_modules up from the requiring package.
    for (let d = dir; ; d = dirname(d)) {
      const candidate = join(d, "node_modules", name);
      try {
        const manifest = JSON.parse(readFileSync(join(candidate, "package.json"), "utf8")) as Manifest;
        if (found.has(name)) return;
        found.set(name, realpathSync(candidate));
        for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, candidate);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT" || d === dirname(d)) throw e;
      }
    }
  };
  for (const dep of deps) visit(dep, from);
  return found;
}

let lite: Lite;
let packed: Packed;
let project: string;
let installed: Map<string, string>;

async function consumerProject(): Promise<void> {
  const dir = scratchDir("svc-client-");
  packed = await packClient(dir);
  project = join(dir, "project");
  const pkgDir = join(project, "node_modules/svc-client");
  mkdirSync(pkgDir, { recursive: true });
  await run("tar", ["-xzf", packed.tarball, "-C", pkgDir, "--strip-components=1"]);
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as Manifest;
  installed = closure(Object.keys(manifest.dependencies ?? {}));
  // Only those (and, for the type check, Node's types) can be resolved: the project is outside
  // the repo, so nothing falls back to the repo's node_modules.
  const links: [string, string][] = [
    ...installed,
    ["@types/node", realpathSync(join(ROOT, "node_modules/@types/node"))],
  ];
  for (const [name, path] of links) {
    const link = join(project, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(path, link);
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
}

beforeAll(async () => {
  [lite] = await Promise.all([startLite(), consumerProject()]);
}, 120_000);
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

describe("svc-client, from its packed package", () => {
  it("is the client alone: one declaration file, and protobufjs the only dependency", () => {
    expect([...installed.keys()].sort()).toEqual(["long", "protobufjs"]);
    expect(packed.files.filter((f) => f.endsWith(".d.ts"))).toEqual(["dist/index.d.ts"]);
    expect(packed.files).toContain("package.json");
    expect(packed.files).toContain("dist/index.js");
    const size = packed.unpackedSize + [...installed.values()].reduce((n, dir) => n + duBytes(dir), 0);
    console.log(
      `svc-client: ${packed.files.length} files, ${packed.unpackedSize} bytes; with its dependencies ${size} bytes`,
    );
    expect(size).toBeLessThan(6 << 20);
  });

  it("plain Node imports it and talks to lite through the public API only", async () => {
    writeFileSync(join(project, "use.mjs"), USE);
    const basin = uniqueBasin("lib");
    const { stdout } = await run(process.execPath, ["use.mjs", lite.url, lite.token, basin], { cwd: project });
    expect(JSON.parse(stdout)).toEqual(USE_EXPECTED);
  }, 60_000);

  it("tsc checks a consumer against its declarations", async () => {
    expect(await typeCheck(project)).toEqual({ code: 0, out: "" });
  }, 60_000);
});

/** Bytes of the files under `dir` (as `du -sb` counts them). */
function duBytes(dir: string): number {
  return Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0]);
}
