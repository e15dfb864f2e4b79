#!/usr/bin/env node
// Biome's linter (biome.json: its recommended rules, no non-null `!`, functions of at most 60
// lines), and our own rule that a source file under src/ is at most 300 lines, against a baseline of what the code held when the linter came in (lint-baseline.json:
// a count per file and rule). New code meets the rules: a file fails when it holds more
// findings of a rule than its baseline allows, and a file or rule the baseline does not name
// allows none. Counts that fell are reported, so the baseline can be lowered with --update
// (which only ever lowers: it never lets a count rise).
//
//   node scripts/lint-baseline.mjs            check (npm run lint)
//   node scripts/lint-baseline.mjs --update   lower the baseline to what is there now
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BASELINE = join(ROOT, "lint-baseline.json");
const BIOME = join(ROOT, "node_modules", ".bin", "biome");
const FILE_CAP = 300;
const FILE_RULE = "svc/fileOver300Lines";

/** src/ files over FILE_CAP lines (generated code aside), as findings of FILE_RULE. */
function longFiles(found) {
  const walk = (dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith(".ts") ? [`${dir}/${e.name}`] : [],
    );
  for (const path of walk("src")) {
    if (path.startsWith("src/wire/gen/")) continue;
    const lines = readFileSync(join(ROOT, path), "utf8").split("\n").length - 1;
    if (lines > FILE_CAP)
      found.set(`${path}\t${FILE_RULE}`, {
        count: 1,
        first: `${path}: ${lines} lines, over the cap of ${FILE_CAP}: split it`,
      });
  }
}

function findings() {
  let out;
  try {
    out = execFileSync(BIOME, ["lint", "--reporter=json", "--max-diagnostics=none", "."], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    // biome exits 1 when it finds anything; its report is on stdout all the same.
    if (typeof e.stdout !== "string" || e.stdout === "") throw e;
    out = e.stdout;
  }
  const report = JSON.parse(out);
  /** @type {Map<string, {count: number, first: string}>} */
  const found = new Map();
  for (const d of report.diagnostics) {
    if (d.severity !== "error" && d.severity !== "warning") continue;
    const key = `${d.location.path}\t${d.category}`;
    const at = `${d.location.path}:${d.location.start?.line ?? "?"}: ${d.category.replace(/^lint\//, "")}: ${d.message}`;
    const f = found.get(key);
    if (f) f.count++;
    else found.set(key, { count: 1, first: at });
  }
  longFiles(found);
  return found;
}

function readBaseline() {
  const doc = JSON.parse(readFileSync(BASELINE, "utf8"));
  const allowed = new Map();
  for (const [path, rules] of Object.entries(doc.files))
    for (const [rule, n] of Object.entries(rules)) allowed.set(`${path}\t${rule}`, n);
  return allowed;
}

function writeBaseline(counts) {
  const files = {};
  for (const [key, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [path, rule] = key.split("\t");
    (files[path] ??= {})[rule] = n;
  }
  const note =
    "What the code held when Biome's linter came in, per file and rule: scripts/lint-baseline.mjs fails on more, and --update only lowers it.";
  writeFileSync(BASELINE, `${JSON.stringify({ note, files }, null, 2)}\n`);
}

const found = findings();
if (process.argv.includes("--init")) {
  writeBaseline(new Map([...found].map(([k, f]) => [k, f.count])));
  process.stderr.write(`lint baseline: ${found.size} file-rule pairs written\n`);
  process.exit(0);
}
const allowed = readBaseline();
const over = [];
let lower = 0;
for (const [key, f] of found) {
  const limit = allowed.get(key) ?? 0;
  if (f.count > limit) over.push(`${f.first}${f.count > 1 ? ` (${f.count} in the file, ${limit} allowed)` : ""}`);
}
for (const [key, limit] of allowed) if ((found.get(key)?.count ?? 0) < limit) lower++;
if (process.argv.includes("--update")) {
  if (over.length > 0) {
    process.stderr.write("lint baseline: not lowered, some counts are above it:\n");
  } else {
    const now = new Map();
    for (const [key, limit] of allowed) {
      const n = Math.min(limit, found.get(key)?.count ?? 0);
      if (n > 0) now.set(key, n);
    }
    writeBaseline(now);
    process.stderr.write(`lint baseline: lowered where ${lower} counts fell\n`);
    process.exit(0);
  }
}
if (over.length > 0) {
  process.stderr.write(
    `lint: ${over.length} file-rule count(s) above the baseline (lint-baseline.json); fix the new findings:\n${over.map((l) => `  ${l}`).join("\n")}\n`,
  );
  process.exit(1);
}
const total = [...found.values()].reduce((s, f) => s + f.count, 0);
process.stderr.write(
  `lint: ${total} findings, none above the baseline${lower > 0 ? `; ${lower} count(s) fell: npm run lint:lower-baseline` : ""}\n`,
);
