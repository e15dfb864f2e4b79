/** The README's and the guides' shell examples, as the example tests run them. */

/** The runnable commands of the ```sh blocks: continuations joined, trailing comments dropped. */
export function readmeCommands(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)) {
    const joined = m[1]!.replace(/\\\n\s*/g, " ");
    for (const raw of joined.split("\n")) {
      const line = raw.replace(/\s{2,}#\s.*$/, "").trim();
      if (line === "" || line.startsWith("#") || line.startsWith("npm ")) continue;
      if (/^export \w+=[^$]*$/.test(line)) continue;
      out.push(line.replaceAll("node bin/svc.js", "svc"));
    }
  }
  return out;
}
