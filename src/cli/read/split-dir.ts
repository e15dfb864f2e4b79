/** `--split-dir DIR`: each record as `<seq>.bin` (the exact body) plus `<seq>.json` (metadata). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../dirs.js";
import { type JsonOptions, recordToJson } from "../../format/record-output.js";
import type { SequencedRecord } from "../../types.js";
import { ioError } from "../failure.js";

export function prepareSplitDir(dir: string): void {
  try {
    makeDirs(dir);
  } catch (e) {
    throw ioError(`cannot create --split-dir ${dir}: ${(e as Error).message}`, e);
  }
}

export function writeSplit(dir: string, r: SequencedRecord, json: JsonOptions): void {
  writeFileSync(join(dir, `${r.seqNum}.bin`), r.body);
  writeFileSync(join(dir, `${r.seqNum}.json`), `${JSON.stringify(recordToJson(r, { ...json, drop: "body" }))}\n`);
}
