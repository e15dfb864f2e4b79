#!/usr/bin/env node
// Start-up (issue 13): `svc --version` alone is answered without loading the CLI; every other
// command runs from the bundle (dist/bundle, made by `npm run build`), except `svc lite`,
// which runs from the unbundled tree like the server's own modules. Without a bundle, or with
// SVC_UNBUNDLED=1 (debugging with source maps; the start-up tests trace modules by name), the
// unbundled tree serves everything.
import { existsSync } from "node:fs";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  import("../dist/cli/version.js").then((m) => process.stdout.write(`${m.VERSION}\n`));
} else {
  const bundle = new URL("../dist/bundle/main.mjs", import.meta.url);
  const useBundle = !args.includes("lite") && process.env.SVC_UNBUNDLED !== "1" && existsSync(bundle);
  const entry = useBundle ? bundle.href : "../dist/cli/main.js";
  import(entry).then((m) => m.main(args));
}
