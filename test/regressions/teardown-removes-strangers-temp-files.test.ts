/**
 * Bug: the test run's global teardown deleted every `svc-*` entry that appeared in the shared
 * temp dir while the run went on, whoever had made it: a concurrent build's cache, another
 * developer's test run, another user's files. And the PostgreSQL helper's orphan sweep killed
 * whatever process a planted `pgtest-svc-…` dir (its owner.pid and postmaster.pid) named, as long as its
 * command line said "postgres" somewhere.
 *
 * Now a run makes its own temp dir at set-up and removes that whole at the end, touching nothing
 * beside it; the orphan sweep judges only dirs of its own uid and signals only a PostgreSQL whose
 * command line names that very data dir.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sweepOrphans } from "../bench/lib/postgres.mjs";
import setup from "../global-setup.js";
import { scratchDir } from "../helpers/scratch.js";

const saved = process.env.TMPDIR;
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});

describe("the test run's temp dir", () => {
  it("teardown leaves a stranger's svc-* entry, made during the run, alone", async () => {
    const shared = scratchDir("shared-tmp-");
    process.env.TMPDIR = shared;
    const teardown = await setup();
    const ours = process.env.TMPDIR ?? "";
    expect(ours).not.toBe(shared);
    expect(ours.startsWith(shared)).toBe(true);
    // A stranger's file and dir appear in the shared temp dir while the run goes on.
    writeFileSync(join(shared, "svc-strangers-cache"), "keep me");
    mkdirSync(join(shared, "svc-strangers-dir"));
    // Our own leftovers appear in the run's dir.
    writeFileSync(join(ours, "svc-left-by-a-test"), "x");
    await teardown();
    expect(existsSync(join(shared, "svc-strangers-cache"))).toBe(true);
    expect(existsSync(join(shared, "svc-strangers-dir"))).toBe(true);
    expect(existsSync(ours)).toBe(false);
    expect(process.env.TMPDIR).toBe(shared);
  });

  it("the orphan sweep never signals a process a planted pid file names", async () => {
    const shared = scratchDir("shared-tmp-");
    // A victim process whose command line says "postgres", and a planted server dir naming it,
    // with an owner.pid of a process that is gone.
    const victim = spawn(process.execPath, ["-e", "setInterval(()=>{},1000)", "postgres"], {
      stdio: "ignore",
    });
    try {
      const planted = join(shared, "pgtest-svc-planted");
      mkdirSync(join(planted, "data"), { recursive: true });
      writeFileSync(join(planted, "owner.pid"), "999999999");
      writeFileSync(join(planted, "data", "postmaster.pid"), `${victim.pid}\n`);
      process.env.TMPDIR = shared;
      await sweepOrphans();
      expect(victim.exitCode).toBe(null);
      expect(victim.signalCode).toBe(null);
      expect(() => process.kill(victim.pid!, 0)).not.toThrow();
      // The dir itself was ours (same uid) and its owner gone: it is removed.
      expect(readdirSync(shared)).not.toContain("pgtest-svc-planted");
    } finally {
      victim.kill("SIGKILL");
    }
  });
});
