/**
 * Bug: `npm run test:extended` (two vitest projects) failed at its very end with "ENOENT:
 * scandir …/svc-test-run-X/svc-test-run-Y" after every test had passed. vitest calls each
 * globalSetup once per project: the second project's set-up made a run dir inside the
 * first's, the first's teardown removed both, and the second's teardown found its dir gone.
 * CI saw exit 1. (The same doubling started a second PostgreSQL for the run.) Runs nest a dir
 * per project whenever a config has projects; the teardowns usually come innermost first,
 * which hid it, until one did not.
 *
 * Now the projects of one run share the one temp dir (and the one PostgreSQL); the last
 * teardown removes it. This runs vitest itself on a two-project config whose tests report the
 * TMPDIR they see.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchDir } from "../helpers/scratch.js";

const ROOT = resolve(__dirname, "../..");

describe("a vitest run of two projects", () => {
  it("shares one run temp dir between the projects and ends cleanly", () => {
    const dir = scratchDir("two-projects-");
    const outer = join(dir, "tmp");
    mkdirSync(outer);
    const report = join(dir, "seen");
    mkdirSync(report);
    for (const name of ["a", "b"]) {
      writeFileSync(
        join(dir, `${name}.test.mjs`),
        `import { writeFileSync } from "node:fs";
import { it } from "vitest";
it("reports its TMPDIR", () => { writeFileSync(${JSON.stringify(join(report, name))}, process.env.TMPDIR); });
`,
      );
    }
    writeFileSync(
      join(dir, "vitest.config.mjs"),
      `export default {
  test: {
    globalSetup: [${JSON.stringify(join(ROOT, "test/global-setup.ts"))}],
    projects: [
      { extends: true, test: { name: "a", include: ["a.test.mjs"] } },
      { extends: true, test: { name: "b", include: ["b.test.mjs"] } },
    ],
  },
};
`,
    );
    const run = spawnSync(
      process.execPath,
      [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--config", join(dir, "vitest.config.mjs"), "--root", dir],
      { cwd: dir, env: { ...process.env, TMPDIR: outer, NO_COLOR: "1" }, encoding: "utf8", timeout: 60_000 },
    );
    expect(run.stderr + run.stdout).not.toMatch(/ENOENT|Startup Error/);
    expect(run.status).toBe(0);
    const a = readFileSync(join(report, "a"), "utf8");
    const b = readFileSync(join(report, "b"), "utf8");
    expect(a).toBe(b);
    // One dir, right in the temp dir: not one inside another.
    expect(dirname(a)).toBe(outer);
    expect(basename(a)).toMatch(/^svc-test-run-/);
    expect(existsSync(a)).toBe(false);
    expect(readdirSync(outer)).toEqual([]);
  });
});
