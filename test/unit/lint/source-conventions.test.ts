/**
 * Conventions of src/ that no compiler checks (docs/architecture.md, "Who may import whom"):
 * - no barrels: no module re-exports another's names (`export … from`), and the only
 *   `index.ts` files are the command groups under cli/commands/, which hold code of their own;
 *   the one exception is src/index.ts, the library's public entry (package.json `exports`),
 *   whose whole job is to list the public names;
 * - comments say what the code means: no "issue N" references (history belongs in git);
 * - svc lite reads its environment in one place, lite/options.ts (its settings are declared in
 *   lite/option-table.ts and passed down as values).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const SRC = join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "gen" ? [] : sourceFiles(p);
    return name.endsWith(".ts") ? [p] : [];
  });
}

const files = sourceFiles(SRC).map((p) => ({ path: relative(ROOT, p), text: readFileSync(p, "utf8") }));

/** The library's front door (docs/library.md): the one module that re-exports, by name. */
const PUBLIC_ENTRY = "src/index.ts";

describe("src/ conventions", () => {
  it("has no barrels: no re-exports, and index.ts only for command groups (and the public entry)", () => {
    const reexports = files
      .filter((f) => f.path !== PUBLIC_ENTRY)
      .flatMap((f) =>
        [...f.text.matchAll(/^export (?:type )?(?:\{[^}]*\}|\*(?: as \w+)?) from .*$/gm)].map(
          (m) => `${f.path}: ${m[0]}`,
        ),
      );
    expect(reexports).toEqual([]);
    const indexes = files
      .map((f) => f.path)
      .filter((p) => p.endsWith("/index.ts") && !p.startsWith("src/cli/commands/") && p !== PUBLIC_ENTRY);
    expect(indexes).toEqual([]);
  });

  it("the public entry lists its names one by one: no `export *`", () => {
    const entry = files.find((f) => f.path === PUBLIC_ENTRY);
    expect(entry?.text).toMatch(/^export \{ [^}]*SvcClient/m);
    expect(entry?.text).not.toMatch(/^export (?:type )?\*/m);
  });

  it("refers to no issue numbers", () => {
    const refs = files.flatMap((f) =>
      f.text.split("\n").flatMap((line, i) => (/\bissues? #?\d/i.test(line) ? [`${f.path}:${i + 1}`] : [])),
    );
    expect(refs).toEqual([]);
  });

  it("svc lite reads process.env in options.ts only", () => {
    const code = (text: string) =>
      text
        .split("\n")
        .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
        .join("\n");
    const readers = files.filter((f) => f.path.startsWith("src/lite/") && /process\.env\b/.test(code(f.text)));
    expect(readers.map((f) => f.path).sort()).toEqual([
      "src/lite/options.ts",
      // The clock tests' skewed wall clock, a test seam like test-fault.ts (inert unless SVC_LITE_TEST_FAULTS=enabled).
      "src/lite/storage/wall-clock.ts",
      // The deliberate bugs the reliability tests arm are no setting of lite: they stay out of its options.
      "src/lite/test-fault.ts",
      // NODE_OPTIONS is node's own, read with process.execArgv: whether node was given a heap size.
      "src/lite/thread.ts",
    ]);
  });
});
