/**
 * Temp dirs for tests that are removed after the test file (test/setup.ts): tests leave
 * nothing behind in the temp dir.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeScratchDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}
