// Bundles the CLI (dist/cli/main.js and everything it imports from dist/ and from the pure
// JavaScript packages) into one CommonJS file, dist/bundle/main.cjs, with esbuild, after tsc;
// then makes V8's code cache for it (dist/bundle/main.cjs.cache) by running `svc --help` once
// (start-up).
//
// Why one CommonJS file: a one-shot command spent most of its start-up in Node's ES module
// loader, resolving, reading and linking about thirty modules (or chunks) one by one. One file
// read synchronously loads in a fraction of that; lazily loaded commands stay lazy inside it
// (esbuild wraps them in init functions that run on first use). Why the code cache: compiling
// the file was the largest cost left; bin/svc.js compiles it with the cache V8 made here (V8
// refuses a cache from another V8 version or other flags, and then compiles from source).
//
// Not bundled, loaded from node_modules or dist/ as before:
// - packages with native code or heavy start-up, which are imported lazily anyway (lmdb, zstd,
//   undici, pg, libsodium, ora);
// - svc lite (dist/lite/): bin/svc.js runs `svc lite` from the unbundled tree, so the server's
//   modules (its worker thread, its error classes) are the same files as always.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { build } from "esbuild";

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

/**
 * commander requires node:child_process at load time, for executable subcommands, which svc
 * does not have: loading it (with dgram and three internal modules) cost every command a few
 * ms. commander gets a stand-in that loads the real module on first use.
 */
const lazyChildProcessForCommander = {
  name: "lazy-child-process-for-commander",
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes("/node_modules/commander/")
        ? { path: "child_process", namespace: "lazy-builtin" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => ({
      contents: `module.exports = new Proxy({}, { get: (_, key) => require("node:${args.path}")[key] });`,
      loader: "js",
    }));
  },
};

await build({
  entryPoints: { main: join(root, "dist/cli/main.js") },
  outdir,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap: false,
  // Whitespace and syntax only: names stay (profiles, error classes), and the smaller file reads
  // and loads faster (svc --help 37.4 -> 35.0 ms).
  minifyWhitespace: true,
  minifySyntax: true,
  outExtension: { ".js": ".cjs" },
  // import() of what stays outside becomes require(): V8 loses a script's dynamic-import hook
  // when it is compiled from a code cache (nodejs/node#43663). Node ≥ 20.19 requires ES modules
  // (ora, dist/lite) natively.
  supported: { "dynamic-import": false },
  logLevel: "warning",
  external: ["lmdb", "@mongodb-js/zstd", "undici", "pg", "libsodium-wrappers-sumo", "ora"],
  plugins: [keepLiteOutside, lazyChildProcessForCommander],
});

// bin/svc.js writes the cache when it finds none (after the command, with every function the
// command compiled): `--help` compiles commander and the program, most of any command's start.
const svc = join(root, "bin/svc.js");
const r = spawnSync(process.execPath, [svc, "--help"], { stdio: "ignore", env: { ...process.env, NODE_OPTIONS: "" } });
if (r.status !== 0 || !existsSync(join(outdir, "main.cjs.cache"))) {
  console.error(
    `bundle: the code cache was not made (svc --help exited ${r.status}); the CLI still runs, compiling from source`,
  );
} else {
  await extendCache().catch((e) => console.error(`bundle: the code cache covers --help only (${e.message})`));
}

/**
 * Adds the functions of the common one-shot commands to the cache (each compiled lazily, on
 * first use, ~3 ms of every `svc append`/`read`/`basin list` otherwise): each runs once against
 * an in-memory svc lite with SVC_BUILD_CODE_CACHE=1, which rewrites the cache with everything
 * the command compiled, the cache's earlier contents included.
 */
async function extendCache() {
  const home = mkdtempSync(join(tmpdir(), "svc-build-cache-"));
  const quiet = {
    ...process.env,
    NODE_OPTIONS: "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_DATA_HOME: join(home, "data"),
  };
  const lite = spawn(process.execPath, [svc, "lite", "--in-memory", "--port", "0"], {
    stdio: ["ignore", "pipe", "ignore"],
    env: quiet,
  });
  try {
    const out = await new Promise((res, rej) => {
      let text = "";
      lite.stdout.on("data", (d) => {
        text += d;
        if ((text.match(/^export /gm) ?? []).length >= 3) res(text);
      });
      lite.on("exit", (code) => rej(new Error(`svc lite exited ${code}`)));
      setTimeout(() => rej(new Error("svc lite did not start in 20 s")), 20_000).unref();
    });
    const env = { ...quiet, SVC_BUILD_CODE_CACHE: "1" };
    for (const m of out.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
    const input = join(home, "one.txt");
    writeFileSync(input, "one record\n");
    const commands = [
      ["basin", "create", "build-code-cache"],
      ["stream", "create", "svc://build-code-cache/s"],
      ["append", "svc://build-code-cache/s", "-i", input, "-q"],
      ["read", "svc://build-code-cache/s", "-s", "0", "-n", "1"],
      ["check-tail", "svc://build-code-cache/s"],
      ["basin", "list"],
      ["stream", "list", "build-code-cache"],
    ];
    for (const args of commands) {
      const c = spawnSync(process.execPath, [svc, ...args], { stdio: "ignore", env });
      if (c.status !== 0) throw new Error(`svc ${args.join(" ")} exited ${c.status}`);
    }
  } finally {
    lite.kill("SIGTERM");
    if (lite.exitCode === null) await new Promise((r) => lite.once("exit", r));
    rmSync(home, { recursive: true, force: true });
  }
}
