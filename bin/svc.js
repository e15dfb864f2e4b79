#!/usr/bin/env node
// Start-up: `svc --version` alone is answered without loading the CLI; every other
// command runs from the bundle (dist/bundle/main.cjs, made by `npm run build`: one CommonJS
// file, compiled with the V8 code cache made next to it), except `svc lite`, which runs from
// the unbundled tree like the server's own modules (`svc lite ...` goes straight to lite's
// entry, dist/lite/run.js). Without a bundle, or with SVC_UNBUNDLED=1
// (debugging with source maps; the start-up tests trace modules by name), the unbundled tree
// serves everything.
//
// This file is CommonJS (bin/package.json): an ES module entry point would start Node's ES
// module loader, a dozen internal modules, for nothing.
"use strict";
const { existsSync, readFileSync, renameSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { dirname, join } = require("node:path");
const vm = require("node:vm");

const args = process.argv.slice(2);
const dist = join(__dirname, "../dist");
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`${require(join(dist, "cli/version.js")).VERSION}\n`);
} else {
  const bundle = join(dist, "bundle/main.cjs");
  if (args[0] === "lite") {
    // The server's own process: straight to lite's entry, without the CLI program, so that its
    // server thread (dist/lite/thread.js) starts as soon as the flags are parsed.
    import("../dist/lite/run.js")
      .then((m) => m.runLite(args.slice(1)))
      .catch((e) => import("../dist/cli/main.js").then((m) => m.exitWithError(e, args)));
  } else if (!args.includes("lite") && process.env.SVC_UNBUNDLED !== "1" && existsSync(bundle))
    runBundle(bundle).main(args);
  else import("../dist/cli/main.js").then((m) => m.main(args));
}

/** Loads the CommonJS bundle as Node would, but compiled with V8's code cache when it fits. */
function runBundle(file) {
  const cacheFile = `${file}.cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    /* none yet: compiled from source */
  }
  const source = readFileSync(file, "utf8");
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  // No cache (a fresh build) or one V8 refused (another Node): write one after this command, with
  // every function it compiled. Only from a plain `node` (flags are part of V8's check), and
  // written whole or not at all; a read-only install just keeps compiling from source. The build
  // sets SVC_BUILD_CODE_CACHE=1 to add each of a few one-shot commands' functions to the cache.
  const extend = process.env.SVC_BUILD_CODE_CACHE === "1";
  if (
    (cachedData === undefined || script.cachedDataRejected || extend) &&
    process.execArgv.length === 0 &&
    !process.env.NODE_OPTIONS
  ) {
    process.once("exit", () => {
      try {
        const tmp = `${cacheFile}.${process.pid}`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        /* not writable: fine */
      }
    });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}
