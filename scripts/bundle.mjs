// Bundles the CLI (dist/cli/main.js and everything it imports from dist/ and from the pure
// JavaScript packages) into dist/bundle/ with esbuild, after tsc (issue 13, start-up).
//
// Why: a one-shot command spent most of its start-up resolving, reading and compiling about a
// hundred ES modules one by one. One file (plus the chunks of lazily loaded commands, which
// stay lazy: esbuild splits at every dynamic import) loads in a fraction of that.
//
// Not bundled, loaded from node_modules or dist/ as before:
// - packages with native code or heavy start-up, which are imported lazily anyway (lmdb, zstd,
//   undici, pg, libsodium, ora);
// - svc lite (dist/lite/): bin/svc.js runs `svc lite` from the unbundled tree, so the server's
//   modules (its worker thread, its error classes) are the same files as always.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const outdir = join(root, "dist/bundle");
const liteDir = join(root, "dist/lite") + "/";

rmSync(outdir, { recursive: true, force: true });

/** Imports that resolve into dist/lite/ stay imports of those files. */
const keepLiteOutside = {
  name: "keep-lite-outside",
  setup(b) {
    b.onResolve({ filter: /\/lite\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (!target.startsWith(liteDir)) return undefined;
      return { path: relative(outdir, target), external: true };
    });
  },
};

await build({
  entryPoints: { main: join(root, "dist/cli/main.js") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: false,
  // .mjs: node knows the format without looking for a package.json per file.
  outExtension: { ".js": ".mjs" },
  logLevel: "warning",
  external: ["lmdb", "@mongodb-js/zstd", "undici", "pg", "libsodium-wrappers-sumo", "ora"],
  plugins: [keepLiteOutside],
  // commander and protobufjs are CommonJS and require node built-ins.
  banner: { js: 'import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);' },
});


