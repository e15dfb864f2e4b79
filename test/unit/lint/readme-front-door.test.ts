/**
 * The README is a front door (at most 400 lines, with the two set-up commands) that links every
 * page under docs/; every relative link of the README and the guides reaches a file (and a
 * heading, when it names one); every `protocol.md §N` the README and the guides cite names a
 * section of docs/protocol.md; and every guide about the command line is printed by
 * `svc help <topic>`. (doc-citations.test.ts checks what the code cites.)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { TOPICS } from "../../../src/cli/help-topics.js";
import { citations, sections } from "../../helpers/protocol-citations.js";

const ROOT = resolve(import.meta.dirname, "../../..");

describe("the README and the guides", () => {
  const known = sections(readFileSync(join(ROOT, "docs/protocol.md"), "utf8"));
  it("the README is a front door: at most 400 lines, the two set-up commands, a link to every page", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(400);
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm ci && npm test");
    for (const p of docsPages()) expect(readme, p).toContain(`](${p})`);
  });

  it("every relative link of the README and the guides reaches a file, and the heading it names", () => {
    const broken: string[] = [];
    for (const p of ["README.md", ...docsPages()]) {
      for (const m of readFileSync(join(ROOT, p), "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [file = "", fragment] = link.split("#");
        const target = file === "" ? p : join(dirname(p), file);
        if (!existsSync(join(ROOT, target))) broken.push(`${p}: ${link}`);
        else if (fragment !== undefined && !headingIds(readFileSync(join(ROOT, target), "utf8")).has(fragment))
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

function docsPages(): string[] {
  return readdirSync(join(ROOT, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`);
}

/** The ids GitHub gives a page's headings (what a link's #fragment names): lower case, punctuation dropped, spaces to hyphens. */
function headingIds(markdown: string): Set<string> {
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
