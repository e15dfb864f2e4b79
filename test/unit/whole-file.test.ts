/**
 * whole-file.ts: a file is replaced whole under a temporary name, with its kind's mode (SECRET:
 * 0600 whatever the umask; CHECKPOINT: the umask's), and nothing is left beside it, written or not.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHECKPOINT, SECRET, writeWhole } from "../../src/whole-file.js";
import { scratchDir } from "../helpers/scratch.js";

const modeOf = (path: string): number => statSync(path).mode & 0o777;
const umask = process.umask();

describe("writeWhole", () => {
  afterEach(() => void process.umask(umask));

  it("a secret is 0600 whatever the umask, and replaces the old file whole", () => {
    const dir = scratchDir("whole-file-");
    const path = join(dir, "root-token");
    writeFileSync(path, "old\n", { mode: 0o644 });
    process.umask(0o277);
    writeWhole(path, "new\n", SECRET);
    expect(readFileSync(path, "utf8")).toBe("new\n");
    expect(modeOf(path)).toBe(0o600);
    process.umask(0);
    writeWhole(path, Buffer.from("newer\n"), SECRET);
    expect(modeOf(path)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["root-token"]);
  });

  it("a checkpoint takes the umask's mode", () => {
    const dir = scratchDir("whole-file-");
    process.umask(0o022);
    writeWhole(join(dir, "a"), "1\n", CHECKPOINT);
    expect(modeOf(join(dir, "a"))).toBe(0o644);
    process.umask(0o077);
    writeWhole(join(dir, "b"), "2\n", CHECKPOINT);
    expect(modeOf(join(dir, "b"))).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(["a", "b"]);
  });

  it("a write that fails leaves the old file and no temporary one", () => {
    const dir = scratchDir("whole-file-");
    const taken = join(dir, "taken");
    mkdirSync(join(taken, "inside"), { recursive: true });
    expect(() => writeWhole(taken, "x", CHECKPOINT)).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir)).toEqual(["taken"]);
    expect(() => writeWhole(join(dir, "no-such-dir", "f"), "x", SECRET)).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual(["taken"]);
  });
});
