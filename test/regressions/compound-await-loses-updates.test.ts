/**
 * Bug (found while chasing the "metrics on vs off" bench row): test/bench/lite-metrics.mjs
 * counted records with `done += await op()` in four concurrent workers. `x += await f()` reads
 * `x` before the await and writes `x + result` after it, so the workers' sums overwrote each
 * other: its unary figures were 2-5x low (50-110k records/s where the server did 200-350k) and
 * swung with the interleaving, which made the row's ratio noise. The bench now awaits first and
 * then adds. This test shows the lost update, and keeps the pattern out of src/ and test/.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" || name === "fixtures" ? [] : sources(p);
    return /\.(ts|mjs|js)$/.test(name) ? [p] : [];
  });
}

/**
 * An arithmetic compound assignment whose right side starts with an await: `a += await f()`,
 * `o.n -= await g()`. (`x ??= await open()`, a lazy open by one caller, is not an accumulation.)
 */
const LOST_UPDATE = /[\w\]).]\s*[-+*/]=\s*await\b/;

describe("`x += await f()` in concurrent code loses updates", () => {
  it("loses updates when workers run concurrently; awaiting first does not", async () => {
    const tick = (): Promise<number> => new Promise((r) => setTimeout(() => r(1), 1));
    let racy = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 10; i++) racy += await tick();
      }),
    );
    let counted = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 10; i++) {
          const n = await tick();
          counted += n;
        }
      }),
    );
    expect(counted).toBe(40);
    expect(racy).toBeLessThan(40); // each worker's sum overwrote the others'
  });

  it("appears nowhere in src/ or test/", () => {
    const hits = [...sources(join(ROOT, "src")), ...sources(join(ROOT, "test"))]
      .filter((f) => f !== import.meta.filename)
      .flatMap((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .map((line, i) => ({ f, i, line })),
      )
      .filter(
        ({ line }) => LOST_UPDATE.test(line) && !line.trimStart().startsWith("//") && !line.trimStart().startsWith("*"),
      )
      .map(({ f, i, line }) => `${relative(ROOT, f)}:${i + 1}: ${line.trim()}`);
    expect(hits).toEqual([]);
  });
});
