/**
 * Whole-run temp dir (vitest globalSetup, listed first): every test, every lite and svc it
 * starts, and the run's PostgreSQL make their temp files in one directory made for this run
 * (TMPDIR points at it, and workers and children inherit it), removed whole at the end. Tests
 * leave nothing in it: what is still there at the end is listed on stderr (that list is a bug
 * to fix) before the directory goes. Nothing outside it is looked at or touched: another
 * process's `svc-*` files in the shared temp dir are not ours.
 *
 * The directory is 0711: as root, PostgreSQL runs as its own system user, which must reach its
 * data dir below it; names inside are random, and nothing can be listed by others.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const outer = tmpdir();
  const run = mkdtempSync(join(outer, "svc-test-run-"));
  chmodSync(run, 0o711);
  process.env.TMPDIR = run;
  // What the run's PostgreSQL leaves is its own (removed by its stop()); everything else counts.
  const ignored = (n: string) => n.startsWith("pgtest-svc-");
  return () => {
    const left = readdirSync(run).filter((n) => !ignored(n));
    if (left.length > 0) {
      process.stderr.write(
        `\nwarning: the tests left ${left.length} entr${left.length === 1 ? "y" : "ies"} in their temp dir: ${left.slice(0, 10).join(", ")}${left.length > 10 ? ", …" : ""}\n`,
      );
    }
    process.env.TMPDIR = outer;
    rmSync(run, { recursive: true, force: true });
  };
}
