/**
 * A small disk for disk-full tests: a tmpfs mounted on a scratch dir (needs root; undefined
 * otherwise, and the test skips with a note), and a filler file that takes its free space.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, statfsSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./scratch.js";

/** Mounts a tmpfs of `size` (e.g. "64m") on a fresh scratch dir; undefined when that needs root. */
export function mountTmpfs(prefix: string, size: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = scratchDir(prefix);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0755`, "tmpfs", dir], { stdio: "ignore" });
    return dir;
  } catch {
    return undefined;
  }
}

export function unmount(dir: string | undefined): void {
  if (dir !== undefined) execFileSync("umount", ["-l", dir], { stdio: "ignore" });
}

export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/** Fills the disk of `dir` to the last block with a file `fill`; returns its path. */
export function fillDisk(dir: string): string {
  const file = join(dir, "fill");
  for (const chunk of [1 << 20, 1 << 16, 1 << 12]) {
    const zeros = Buffer.alloc(chunk);
    for (;;) {
      try {
        appendFileSync(file, zeros);
      } catch {
        break;
      }
    }
  }
  return file;
}

/** Frees `bytes` of the filler's space. */
export function freeSpace(file: string, bytes: number): void {
  truncateSync(file, Math.max(0, statSync(file).size - bytes));
}
