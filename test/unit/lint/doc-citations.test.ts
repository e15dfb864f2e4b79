/**
 * The repo explains itself: every `protocol.md §N` the code cites names a
 * section of docs/protocol.md (it used to live outside the repo), and the README links both
 * docs/protocol.md and docs/architecture.md.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "gen" ? [] : sourceFiles(p);
    return /\.(ts|cjs|mjs)$/.test(name) ? [p] : [];
  });
}

/** "6", "6.2", ... for every numbered heading of the reference. */
function sections(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{2,4} (\d+(?:\.\d+)*)[.\s]/gm)].map((m) => m[1]!));
}

/** The section numbers after each `protocol.md`: "§6.5, §6.7", "§6.2–6.4", "§8.3–§8.5". */
export function citations(text: string): string[] {
  const lists = text.matchAll(
    /protocol\.md((?:\s*(?:,|;|and|or)?\s*§\s?\d+(?:\.\d+)*(?:\s*[–-]\s*§?\d+(?:\.\d+)*)?)+)/g,
  );
  return [...lists].flatMap((m) => [...m[1]!.matchAll(/\d+(?:\.\d+)*/g)].map((n) => n[0]));
}

describe("docs", () => {
  const known = sections(readFileSync(join(ROOT, "docs/protocol.md"), "utf8"));

  it("finds citations the way the code writes them", () => {
    expect(citations("(protocol.md §6.5, §6.7; reliability.md §2.f)")).toEqual(["6.5", "6.7"]);
    expect(citations("protocol.md §6.2–6.4 and protocol.md §8.3–§8.5.")).toEqual(["6.2", "6.4", "8.3", "8.5"]);
    expect(known.has("6.2") && known.has("11") && !known.has("6.42")).toBe(true);
  });

  it("every protocol.md § citation in the code names a section of docs/protocol.md", () => {
    const files = [...sourceFiles(join(ROOT, "src")), ...sourceFiles(join(ROOT, "test"))];
    const cited: string[] = [];
    const missing: string[] = [];
    for (const file of files) {
      for (const n of citations(readFileSync(file, "utf8"))) {
        cited.push(n);
        if (!known.has(n)) missing.push(`${file.slice(ROOT.length + 1)}: §${n}`);
      }
    }
    expect(cited.length).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  it("the README links the architecture and the protocol reference", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toMatch(/\]\(docs\/architecture\.md\)/);
    expect(readme).toMatch(/\]\(docs\/protocol\.md\)/);
  });
});
