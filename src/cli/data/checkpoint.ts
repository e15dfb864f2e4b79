/**
 * `--checkpoint FILE` for read/tail: after each batch is flushed, the next sequence number is
 * stored (write to a temp file, then rename, so a crash never leaves half a number); a rerun
 * resumes from it.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { clientError } from "../../errors.js";

export function readCheckpoint(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw clientError("usage", `cannot read checkpoint ${path}: ${(e as Error).message}`);
  }
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw clientError("usage", `checkpoint ${path} does not hold a sequence number (${JSON.stringify(text.slice(0, 40))})`);
  return n;
}

export function writeCheckpoint(path: string, next: number): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${next}\n`);
  renameSync(tmp, path);
}
