/**
 * Keeps the evidence of a failed randomised run (reliability.md §2.0 item 5): files go to
 * test-artifacts/<suite>-<seed>/ in the repo (git-ignored), and the path is printed with the
 * replay command.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

export function artifactDir(suite: string, seed: number): string {
  const dir = join(ROOT, "test-artifacts", `${suite}-${seed}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes `files` (name → text) and copies `dirs` (name → path) into the suite's artifact dir. */
export function keepArtifacts(suite: string, seed: number, files: Record<string, string>, dirs: Record<string, string> = {}): string {
  const dir = artifactDir(suite, seed);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  for (const [name, from] of Object.entries(dirs)) {
    try { cpSync(from, join(dir, name), { recursive: true }); } catch { /* best effort */ }
  }
  process.stderr.write(`[${suite}] artifacts kept in ${dir}\n`);
  return dir;
}
