/**
 * Creating a directory and its missing parents, for the two places that make directories on the
 * user's behalf: svc lite's data dir and the CLI's config and `--split-dir` directories.
 *
 * Not `mkdirSync(dir, { recursive: true })`: where mkdir(2) answers ENOENT although the parent
 * exists (under /proc), Node's recursive mkdir creates the parent, finds it there and retries
 * the child, forever: `svc lite --data-dir /proc/x` spun at 100 % CPU and never started. Here
 * each missing component is made once, parents first, and the first failure is thrown.
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e; // made meanwhile by someone else: fine
    }
  }
  if (!statSync(dir).isDirectory()) {
    throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${dir}'`), {
      code: "EEXIST",
      path: dir,
      syscall: "mkdir",
    });
  }
}
