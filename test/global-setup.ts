/**
 * Whole-run temp dir (vitest globalSetup, listed first): every test, every lite and svc it
 * starts, and the run's PostgreSQL make their temp files in one directory made for this run
 * (TMPDIR points at it, and workers and children inherit it), removed whole at the end. Tests
 * leave nothing in it: what is still there at the end is listed on stderr (that list is a bug
 * to fix) before the directory goes. Nothing outside it is looked at or touched: another
 * process's `svc-*` files in the shared temp dir are not ours.
 *
 * vitest runs a globalSetup once per project: when a run has several projects
 * (`npm run test:extended` has two), the first makes the directory, the others share it, and
 * the last teardown removes it (test/helpers/run-shared.ts).
 *
 * The directory is 0711: as root, PostgreSQL runs as its own system user, which must reach its
 * data dir below it; names inside are random, and nothing can be listed by others.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runShared } from "./helpers/run-shared.js";

export default function setup(): Promise<() => Promise<void>> {
  return runShared("temp-dir", async () => {
    const outer = tmpdir();
    const run = mkdtempSync(join(outer, "svc-test-run-"));
    chmodSync(run, 0o711);
    process.env.TMPDIR = run;
    // What the run's PostgreSQL leaves is its own (removed by its stop()); everything else counts.
    const ignored = (n: string) => n.startsWith("pgtest-svc-");
    return async () => {
      const left = readdirSync(run).filter((n) => !ignored(n));
      if (left.length > 0) {
        process.stderr.write(
          `\nwarning: the tests left ${left.length} entr${left.length === 1 ? "y" : "ies"} in their temp dir: ${left.slice(0, 10).join(", ")}${left.length > 10 ? ", …" : ""}\n`,
        );
      }
      process.env.TMPDIR = outer;
      unmountBelow(run);
      rmSync(run, { recursive: true, force: true });
    };
  });
}

/**
 * A disk-full test mounts a tmpfs in the run's dir and unmounts it when done; a test killed by
 * its timeout may not get there. Such a mount would make the removal fail (EBUSY) and outlive
 * the run: it is ours (it is below the run's dir) and is let go of here.
 */
function unmountBelow(dir: string): void {
  let mounts: string;
  try {
    mounts = readFileSync("/proc/self/mounts", "utf8");
  } catch {
    return;
  }
  const points = mounts
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((point) => point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) {
    process.stderr.write(`warning: a test left a mount in the run's temp dir: ${point}\n`);
    try {
      execFileSync("umount", ["-l", point], { stdio: "ignore" });
    } catch {
      // Not ours to force further; the removal below reports what stays.
    }
  }
}
