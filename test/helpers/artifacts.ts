/**
 * Keeps the evidence of a failed randomised run (docs/design/reliability.md, "The shared harness"):
 * files go to test-artifacts/<suite>-<seed>/ in the repo (git-ignored), and the path is printed
 * with the replay command.
 */
import { closeSync, cpSync, lstatSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

export function artifactDir(suite: string, seed: number): string {
  const dir = join(ROOT, "test-artifacts", `${suite}-${seed}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Writes `files` (name → text, or lines written one by one: a history can be longer than the
 * longest string V8 makes) and copies `dirs` (name → path) into the suite's artifact dir.
 */
export function keepArtifacts(
  suite: string,
  seed: number,
  files: Record<string, string | string[]>,
  dirs: Record<string, string> = {},
): string {
  const dir = artifactDir(suite, seed);
  for (const [name, content] of Object.entries(files)) {
    if (typeof content === "string") {
      writeFileSync(join(dir, name), content);
      continue;
    }
    const fd = openSync(join(dir, name), "w");
    try {
      for (const line of content) writeSync(fd, `${line}\n`);
    } finally {
      closeSync(fd);
    }
  }
  for (const [name, from] of Object.entries(dirs)) {
    // Sockets (lite's lock) cannot be copied, and would end the copy.
    const notSocket = (src: string): boolean => {
      try {
        return !lstatSync(src).isSocket();
      } catch {
        return false;
      }
    };
    try {
      cpSync(from, join(dir, name), { recursive: true, filter: notSocket });
    } catch {
      /* best effort */
    }
  }
  process.stderr.write(`[${suite}] artifacts kept in ${dir}\n`);
  return dir;
}
