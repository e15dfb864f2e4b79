/**
 * The repo explains itself:
 * - every `protocol.md §N` the code cites names a section of docs/protocol.md;
 * - nothing in src/, test/, scripts/, bin/, docs/, the README or the config files at the root
 *   cites a document that is not in the repo: every `*.md` named resolves to a file of the repo,
 *   a `§` citation is only ever of protocol.md, nothing points into `../shared`, and nothing
 *   leans on words only outside notes explain ("the anchor", "this round", "style rule N");
 * - every `docs/design/<page>.md, "<heading>"` cited names a heading of that page;
 * - the README links both docs/protocol.md and docs/architecture.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { citations, sections } from "../../helpers/protocol-citations.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const SELF = relative(ROOT, import.meta.filename);

function sourceFiles(dir: string, ext = /\.(ts|cjs|mjs)$/): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "gen" || name === "node_modules" ? [] : sourceFiles(p, ext);
    return ext.test(name) ? [p] : [];
  });
}

/** Every file whose text may cite a document: code, tests, scripts, docs and the root's config files. */
function citingFiles(): string[] {
  const code = /\.(ts|cjs|mjs|js|md)$/;
  const roots = readdirSync(ROOT)
    .filter((n) => /\.(ts|cjs|mjs|js)$/.test(n) || n.startsWith(".dependency-cruiser") || n === "README.md")
    .map((n) => join(ROOT, n));
  return [...["src", "test", "scripts", "bin", "docs"].flatMap((d) => sourceFiles(join(ROOT, d), code)), ...roots].map(
    (p) => relative(ROOT, p),
  );
}

/** Where a named `*.md` resolves, inside the repo: beside the citing file, from the root, or a page of docs/. */
function resolvesInRepo(file: string, md: string): boolean {
  const candidates = [join(ROOT, dirname(file), md), join(ROOT, md)];
  if (!md.includes("/")) candidates.push(join(ROOT, "docs", md));
  return candidates.some((p) => !relative(ROOT, p).startsWith("..") && existsSync(p) && statSync(p).isFile());
}

/** What a file cites that is not in the repo, one line each ("file:line: text"). */
export function outsideCitations(file: string, text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    if (/\.\.\/shared\b|\bshared\/design\b/.test(line)) found.push(`${at}: points outside the repo`);
    for (const m of line.matchAll(/([\w./-]*\.md)\s*§/g))
      if (!/(^|\/)protocol\.md$/.test(m[1]!)) found.push(`${at}: cites ${m[1]} by section`);
    for (const m of line.matchAll(/(?<![\w./-])[\w./-]*\w\.md\b/g))
      if (!resolvesInRepo(file, m[0])) found.push(`${at}: names ${m[0]}, not in the repo`);
    const word = /\banchor(?:'s|s)?\b|\bthis round\b|\bdesign round\b|\ba round earlier\b|\bstyle rule \d/i.exec(line);
    if (word) found.push(`${at}: "${word[0]}" is explained only outside the repo`);
  });
  return found;
}

/** The headings of a markdown page, without their `#`s. */
function headings(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim()));
}

describe("docs", () => {
  const known = sections(readFileSync(join(ROOT, "docs/protocol.md"), "utf8"));

  it("finds citations the way the code writes them", () => {
    expect(citations("(protocol.md §6.5, §6.7; cli.md §2.f)")).toEqual(["6.5", "6.7"]);
    expect(citations("protocol.md §6.2–6.4 and protocol.md §8.3–§8.5.")).toEqual(["6.2", "6.4", "8.3", "8.5"]);
    expect(known.has("6.2") && known.has("11") && !known.has("6.42")).toBe(true);
  });

  it("every protocol.md § citation in the code names a section of docs/protocol.md", () => {
    const files = ["src", "test", "scripts"].flatMap((d) => sourceFiles(join(ROOT, d)));
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

  it("finds what points outside the repo, the ways it has been written", () => {
    const file = "src/lite/example.ts";
    expect(outsideCitations(file, "measured 3x faster (reliability.md §2.f)")).toEqual([
      `${file}:1: cites reliability.md by section`,
      `${file}:1: names reliability.md, not in the repo`,
    ]);
    expect(outsideCitations(file, "(see ../shared/design/scale-out.md)")).toEqual([
      `${file}:1: points outside the repo`,
      `${file}:1: names ../shared/design/scale-out.md, not in the repo`,
    ]);
    expect(outsideCitations(file, "as the anchor does; this round's run; style rule 1")).toHaveLength(1);
    expect(outsideCitations(file, "in the anchor's words")).toHaveLength(1);
    for (const fine of [
      "(protocol.md §6.5, §6.7)",
      'docs/design/reliability.md, "Read resume"',
      "see docs/architecture.md and multi-node.md",
      "a pattern anchored at both ends",
    ])
      expect(outsideCitations(file, fine), fine).toEqual([]);
    expect(outsideCitations("docs/design/cli.md", "[reliability.md](reliability.md)")).toEqual([]);
  });

  it("nothing cites a document that is not in the repo", () => {
    const files = citingFiles().filter((f) => f !== SELF);
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((f) => outsideCitations(f, readFileSync(join(ROOT, f), "utf8")));
    expect(found).toEqual([]);
  });

  it('every docs/design/<page>.md, "<heading>" cited names a heading of that page', () => {
    const missing: string[] = [];
    let cited = 0;
    for (const f of citingFiles()) {
      const text = readFileSync(join(ROOT, f), "utf8");
      for (const m of text.matchAll(/docs\/design\/([\w-]+\.md),\s+"([^"]+)"/g)) {
        cited++;
        // A heading cited in a comment may wrap onto the next comment line.
        const heading = m[2]!.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, " ");
        const page = join(ROOT, "docs/design", m[1]!);
        if (!existsSync(page) || !headings(readFileSync(page, "utf8")).has(heading)) missing.push(`${f}: ${m[0]}`);
      }
    }
    expect(cited).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it("the README links the architecture and the protocol reference", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toMatch(/\]\(docs\/architecture\.md\)/);
    expect(readme).toMatch(/\]\(docs\/protocol\.md\)/);
  });
});
