#!/usr/bin/env node
/**
 * Summarises V8 CPU profiles (`node --cpu-prof`): the top functions by self time, and the
 * share of time idle / in GC / in native code. Used to find what a benchmark spends its CPU on.
 *
 *   node scripts/cpuprofile-top.mjs PROFILE.cpuprofile [N]
 */
import { readFileSync } from "node:fs";

const [file, n = "25"] = process.argv.slice(2);
if (!file) {
  console.error("usage: cpuprofile-top.mjs PROFILE.cpuprofile [N]");
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(prof.nodes.map((node) => [node.id, node]));
const self = new Map();
const deltas = prof.timeDeltas;
let total = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const node = byId.get(prof.samples[i]);
  const dt = deltas[i] ?? 0;
  total += dt;
  const f = node.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(node_modules|dist|src|test)\//, "$1/")}:${f.lineNumber + 1}` : "";
  const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
  self.set(key, (self.get(key) ?? 0) + dt);
}
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(n));
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
for (const [key, us] of rows)
  console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
