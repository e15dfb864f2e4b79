/** How the repo cites docs/protocol.md (`protocol.md §6.5, §6.7`), for the lint tests of test/unit/lint/. */

/** "6", "6.2", ... for every numbered heading of the reference. */
export function sections(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{2,4} (\d+(?:\.\d+)*)[.\s]/gm)].map((m) => m[1]!));
}

/** The section numbers after each `protocol.md`: "§6.5, §6.7", "§6.2–6.4", "§8.3–§8.5". */
export function citations(text: string): string[] {
  const lists = text.matchAll(
    /protocol\.md((?:\s*(?:,|;|and|or)?\s*§\s?\d+(?:\.\d+)*(?:\s*[–-]\s*§?\d+(?:\.\d+)*)?)+)/g,
  );
  return [...lists].flatMap((m) => [...m[1]!.matchAll(/\d+(?:\.\d+)*/g)].map((n) => n[0]));
}
