// Builds the client package, packages/client (docs/library.md): the library alone, without
// the CLI and the server, so that a program using it installs protobufjs (and its one
// dependency) and nothing else.
//
// - dist/index.js and its chunks: esbuild bundles the compiled front door (dist/index.js,
//   from `npm run build`) and everything it imports from dist/, as ES modules split at the
//   dynamic imports, so that a transport or codec still loads only when first used (undici
//   and zstd included: they are optional peers, imported by their chunks alone).
// - dist/index.d.ts: one declaration file for the public API, from src/index.ts (names
//   marked @internal are left out).
//
// The manifest (packages/client/package.json) is written by hand; this script refuses to
// build when its version is not the root package's, or a dependency's range is not a caret on
// the version the root package pins, so the two packages cannot drift.

import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { generateDtsBundle } from "dts-bundle-generator";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const pkgDir = join(root, "packages/client");
const outdir = join(pkgDir, "dist");
const json = (f) => JSON.parse(readFileSync(f, "utf8"));

const rootManifest = json(join(root, "package.json"));
const manifest = json(join(pkgDir, "package.json"));
const problems = [];
if (manifest.version !== rootManifest.version)
  problems.push(`version ${manifest.version}, the root package's is ${rootManifest.version}`);
// The client asks for a caret range; the version the root package pins (the one every test
// runs with) must be its lowest.
for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies }))
  if (range !== `^${rootManifest.dependencies[name]}`)
    problems.push(`${name} ${range}, the root package pins ${rootManifest.dependencies[name] ?? "nothing"}`);
if (problems.length > 0) {
  process.stderr.write(`packages/client/package.json disagrees with package.json: ${problems.join("; ")}\n`);
  process.exit(1);
}
if (!existsSync(join(root, "dist/index.js"))) {
  process.stderr.write("dist/index.js is missing: run npm run build first\n");
  process.exit(1);
}

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { index: join(root, "dist/index.js") },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  outdir,
  chunkNames: "chunks/[name]-[hash]",
  metafile: true,
  logLevel: "warning",
  legalComments: "none",
});
// Every package the bundle imports must be one the manifest declares (or Node's own).
const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
const undeclared = new Set();
for (const out of Object.values(result.metafile.outputs))
  for (const im of out.imports)
    if (im.external && !im.path.startsWith("node:")) {
      const name = im.path.startsWith("@") ? im.path.split("/").slice(0, 2).join("/") : im.path.split("/")[0];
      if (!declared.has(name)) undeclared.add(name);
    }
if (undeclared.size > 0) {
  process.stderr.write(`the client imports packages its manifest does not declare: ${[...undeclared].join(", ")}\n`);
  process.exit(1);
}

const [dts] = generateDtsBundle(
  [{ filePath: join(root, "src/index.ts"), output: { noBanner: true, exportReferencedTypes: false } }],
  { preferredConfigPath: join(root, "tsconfig.lib.json") },
);
writeFileSync(join(outdir, "index.d.ts"), typeOnlyClasses(dts, readFileSync(join(root, "src/index.ts"), "utf8")));

/**
 * The classes src/index.ts exports as types only (the client tree makes them: BasinClient,
 * StreamClient, the ...Api objects) come out of the bundler as `export declare class`, which
 * would let a consumer's `new StreamClient()` type-check although the package exports no such
 * value: they are declared unexported and exported as types.
 */
function typeOnlyClasses(text, front) {
  const typeOnly = new Set();
  for (const m of front.matchAll(/export\s+type\s*\{([^}]*)\}/g))
    for (const n of m[1].split(",")) typeOnly.add(n.trim());
  for (const m of front.matchAll(/export\s*\{([^}]*)\}/g))
    for (const n of m[1].split(",")) if (n.trim().startsWith("type ")) typeOnly.add(n.trim().slice(5).trim());
  const classes = [];
  const out = text.replace(/^export declare class (\w+)/gm, (whole, name) => {
    if (!typeOnly.has(name)) return whole;
    classes.push(name);
    return `declare class ${name}`;
  });
  return out.replace(/\nexport \{\};\n?$/, `\nexport type { ${classes.join(", ")} };\n`);
}
