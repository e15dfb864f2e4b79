/**
 * The import boundaries bite: `.dependency-cruiser.cjs` used to filter with
 * `includeOnly`, which dropped node core modules and (through the node_modules symlink) every
 * package, so `node:fs` in wire/, `node:zlib` in format/ or `lmdb` in client/ all passed.
 *
 * Each folder under test/fixtures/boundaries/ is named after one rule and holds the files that
 * break it, laid out as in the repo: `*.ts.fixture` is added as `*.ts`, `*.ts.append` is
 * appended to the existing file. The test copies src/ into a scratch dir (clean: `npm run lint`
 * checks src/ itself), applies every fixture, runs the real `depcruise` with the repo's config once on
 * all the files they touched, and requires, for each rule, a violation of that rule from a file
 * its own fixture touched.
 */
import { execFile } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { scratchDir } from "../../helpers/scratch.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const FIXTURES = join(ROOT, "test/fixtures/boundaries");
const DEPCRUISE = join(ROOT, "node_modules/.bin/depcruise");
const run = promisify(execFile);

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Runs depcruise the way `npm run lint` does; returns its exit code and the "error <rule>: <from> → <to>" lines. */
async function cruise(cwd: string, roots: string[]): Promise<{ code: number; violations: Violation[] }> {
  let code = 0;
  let out: string;
  try {
    out = (await run(DEPCRUISE, [...roots, "--config", ".dependency-cruiser.cjs"], { cwd, maxBuffer: 64 << 20 }))
      .stdout;
  } catch (e) {
    const err = e as { code?: number; stdout?: string };
    code = err.code ?? 1;
    out = err.stdout ?? "";
  }
  const violations = [...out.matchAll(/^\s*error ([a-z-]+): (\S+) →\s*(\S+)/gm)].map((m) => ({
    rule: { name: m[1]! },
    from: m[2]!,
    to: m[3]!,
  }));
  return { code, violations };
}

const rules = readdirSync(FIXTURES).sort();
let repo: string;

beforeAll(() => {
  repo = scratchDir("svc-boundaries-");
  cpSync(join(ROOT, "src"), join(repo, "src"), { recursive: true });
  for (const f of ["tsconfig.json", ".dependency-cruiser.cjs"]) cpSync(join(ROOT, f), join(repo, f));
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(repo, "node_modules"));
});

/**
 * Applies every fixture to the scratch copy (`*.ts.fixture` added, `*.ts.append` appended) and
 * runs depcruise once over every file touched; the files each rule's fixture touched, by rule.
 */
async function applyAll(): Promise<{ code: number; violations: Violation[]; touched: Map<string, string[]> }> {
  const touched = new Map<string, string[]>();
  const added = new Set<string>();
  for (const rule of rules) {
    const dir = join(FIXTURES, rule);
    const mine: string[] = [];
    for (const file of filesUnder(dir)) {
      const text = readFileSync(file, "utf8");
      const rel = relative(dir, file);
      if (rel.endsWith(".ts.fixture")) {
        // Several fixtures add a file of the same name to one folder: a later one is named after its rule.
        const plain = rel.slice(0, -".fixture".length);
        const target = added.has(plain) ? `${plain.slice(0, -".ts".length)}-${rule}.ts` : plain;
        added.add(target);
        writeFileSync(join(repo, target), text);
        mine.push(target);
      } else if (rel.endsWith(".ts.append")) {
        const target = rel.slice(0, -".append".length);
        appendFileSync(join(repo, target), `\n${text}`);
        mine.push(target);
      }
    }
    touched.set(rule, mine);
  }
  const { code, violations } = await cruise(repo, [...new Set([...touched.values()].flat())]);
  return { code, violations, touched };
}

describe("import boundaries (.dependency-cruiser.cjs)", () => {
  it("every rule of the config has a fixture, and every fixture names a rule", () => {
    const config = readFileSync(join(ROOT, ".dependency-cruiser.cjs"), "utf8");
    const names = [...config.matchAll(/name: "([a-z-]+)"/g)].map((m) => m[1]);
    expect(rules).toEqual([...names].sort());
  });

  // The repo's own src/ passing is `npm run lint`'s own check (npm test runs it before the suite):
  // not run a second time here.

  // Every fixture is applied to the one scratch copy, and depcruise runs once over all the files
  // they touch (one run per fixture took half a minute): each rule must then be broken by the
  // files of its own fixture.
  let all: Promise<{ code: number; violations: Violation[]; touched: Map<string, string[]> }> | undefined;
  const applied = () => (all ??= applyAll());

  it.each(rules)(
    "%s: its fixture fails the check",
    async (rule) => {
      const { code, violations, touched } = await applied();
      const mine = touched.get(rule)!;
      expect(code).not.toBe(0);
      expect(violations.filter((v) => mine.includes(v.from)).map((v) => v.rule.name)).toContain(rule);
    },
    60_000,
  );
});
