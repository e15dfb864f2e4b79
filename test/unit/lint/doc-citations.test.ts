/**
 * The repo explains itself: every `protocol.md §N` the code and the guides cite names a
 * section of docs/protocol.md (it used to live outside the repo); the README is a front door
 * (at most 400 lines, with the two set-up commands) that links every page under docs/; every
 * relative link of the README and the guides reaches a file (and a heading, when it names one);
 * and every guide about the command line is printed by `svc help <topic>`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { TOPICS } from "../../../src/cli/help-topics.js";

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

  it("the README is a front door: at most 400 lines, the two set-up commands, a link to every page", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(400);
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm ci && npm test");
    for (const p of docsPages()) expect(readme, p).toContain(`](${p})`);
    for (const p of PENDING) expect(readme, p).toContain(`](${p})`);
  });

  it("every relative link of the README and the guides reaches a file, and the heading it names", () => {
    const broken: string[] = [];
    for (const p of ["README.md", ...docsPages()]) {
      for (const m of readFileSync(join(ROOT, p), "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [file = "", anchor] = link.split("#");
        const target = file === "" ? p : join(dirname(p), file);
        if (PENDING.includes(target)) continue;
        if (!existsSync(join(ROOT, target))) broken.push(`${p}: ${link}`);
        else if (anchor !== undefined && !anchors(readFileSync(join(ROOT, target), "utf8")).has(anchor))
          broken.push(`${p}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("every protocol.md § citation in the README and the guides names a section of docs/protocol.md", () => {
    const missing: string[] = [];
    for (const p of ["README.md", ...docsPages().filter((d) => d !== "docs/protocol.md")]) {
      for (const n of citations(readFileSync(join(ROOT, p), "utf8"))) if (!known.has(n)) missing.push(`${p}: §${n}`);
    }
    expect(missing).toEqual([]);
  });

  it("every command-line guide is a page that `svc help <topic>` prints and the README names", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    for (const t of TOPICS) {
      expect(existsSync(join(ROOT, "docs", `${t.name}.md`)), t.name).toBe(true);
      expect(readme, t.name).toContain(`\`svc help ${t.name}\``);
    }
  });
});

/**
 * Pages written on other branches that the README already links: listed here until they land
 * (then remove them from this list, and their links are checked like the others).
 */
const PENDING = ["docs/security.md", "docs/multi-node.md", "docs/library.md"];

function docsPages(): string[] {
  return readdirSync(join(ROOT, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`);
}

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    out.add(
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    );
  }
  return out;
}
