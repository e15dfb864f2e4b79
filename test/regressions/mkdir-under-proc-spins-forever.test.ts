/**
 * Bug: `svc lite --data-dir /proc/x` never started and never failed:
 * it spun at 100 % CPU. Node's `mkdirSync(dir, { recursive: true })` loops forever where mkdir(2)
 * answers ENOENT although the parent exists (as under /proc): it makes the parent, finds it
 * there, retries the child. `svc config set` (with XDG_CONFIG_HOME there) and `svc read
 * --split-dir` hung the same way. All three now make each missing directory once (src/dirs.ts)
 * and fail at once with a one-line message: lite exits 1 naming its data dir, the CLI exits 1
 * (code `io`).
 */
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDirs } from "../../src/dirs.js";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { runSvc } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";

const UNDER_PROC = `/proc/svc-no-such-dir-${process.pid}`;

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("directories that cannot be made", () => {
  it("svc lite --data-dir under /proc exits 1 at once, naming the data dir", async () => {
    for (const dir of [UNDER_PROC, `${UNDER_PROC}/nested`]) {
      // runSvc kills the child (SIGKILL) and fails the test if it has not exited in 10 s.
      const r = await runSvc(["lite", "--port", "0", "--data-dir", dir], { timeoutMs: 10_000 });
      expect(r.code, dir).toBe(1);
      expect(r.stdout, dir).toBe("");
      expect(r.stderr, dir).toBe(
        `error: cannot use the data dir ${dir}: cannot create ${UNDER_PROC} (no such file or directory)\n`,
      );
    }
  }, 30_000);

  it("svc config set with its config directory under /proc exits 1 (io)", async () => {
    const r = await runSvc(["config", "set", "access_token", "not-printed"], {
      env: { XDG_CONFIG_HOME: UNDER_PROC },
      timeoutMs: 10_000,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^error: cannot create the config directory ${UNDER_PROC}/svc: ENOENT: .*\\(io\\)\\n$`),
    );
    expect(r.stderr).not.toContain("not-printed");
  });

  it("svc read --split-dir under /proc exits 1 (io) and writes nothing", async () => {
    const uri = await d.newStream("split");
    expect((await d.svc(["append", uri, "-q"], { stdin: "a\nb\n" })).code).toBe(0);
    const r = await d.svc(["read", uri, "-s", "0", "-e", "--split-dir", `${UNDER_PROC}/out`], { timeoutMs: 10_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(new RegExp(`^error: cannot create --split-dir ${UNDER_PROC}/out: ENOENT: .*\\(io\\)\\n$`));
  });

  // In a child process above: the bug was an endless synchronous loop, which no test timeout
  // could interrupt in this one.
  it("makeDirs makes missing parents with the mode, accepts an existing dir, refuses a file", () => {
    const root = scratchDir("svc-dirs-");
    const deep = join(root, "a", "b", "c");
    makeDirs(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
    for (const p of [join(root, "a"), join(root, "a", "b"), deep])
      expect(statSync(p).mode & 0o777).toBe(0o700 & ~process.umask());
    makeDirs(deep, 0o700); // already there: fine
    writeFileSync(join(root, "file"), "x");
    expect(() => makeDirs(join(root, "file"))).toThrow(expect.objectContaining({ code: "EEXIST" }));
    expect(() => makeDirs(join(root, "file", "sub"))).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
    mkdirSync(join(root, "locked"));
    chmodSync(join(root, "locked"), 0o500);
    if (process.getuid?.() !== 0)
      expect(() => makeDirs(join(root, "locked", "x"))).toThrow(expect.objectContaining({ code: "EACCES" }));
  });
});
