/**
 * `--checkpoint FILE` for read/tail: after each batch is flushed, the next sequence number is
 * stored, whole (whole-file.ts, CHECKPOINT: a crash never leaves half a number); a rerun resumes
 * from it.
 */
import { readFileSync } from "node:fs";
import { clientError } from "../../errors.js";
import { CHECKPOINT, writeWhole } from "../../whole-file.js";

export function readCheckpoint(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw clientError("usage", `cannot read checkpoint ${path}: ${(e as Error).message}`);
  }
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n))
    throw clientError(
      "usage",
      `checkpoint ${path} does not hold a sequence number (${JSON.stringify(text.slice(0, 40))})`,
    );
  return n;
}

export function writeCheckpoint(path: string, next: number): void {
  writeWhole(path, `${next}\n`, CHECKPOINT);
}

/**
 * The checkpoint of a tail of several streams: a JSON object from stream URI to the next
 * sequence number, `{"svc://logs/app-1": 42, …}`, replaced whole after each written batch.
 * Undefined when FILE does not exist.
 */
export function readPositions(path: string): Map<string, number> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw clientError("usage", `cannot read checkpoint ${path}: ${(e as Error).message}`);
  }
  if (/^\s*\d+\s*$/.test(text))
    throw clientError(
      "usage",
      `checkpoint ${path} holds one stream's position (svc read/tail of one stream); use another file for several streams`,
    );
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw clientError("usage", `checkpoint ${path} is not a JSON object of stream positions`);
  const out = new Map<string, number>();
  for (const [uri, n] of Object.entries(doc)) {
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)
      throw clientError("usage", `checkpoint ${path}: the position of ${uri} is not a sequence number`);
    out.set(uri, n);
  }
  return out;
}

export function writePositions(path: string, positions: Map<string, number>): void {
  const sorted = [...positions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  writeWhole(path, `${JSON.stringify(Object.fromEntries(sorted))}\n`, CHECKPOINT);
}
