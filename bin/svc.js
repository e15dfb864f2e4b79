#!/usr/bin/env node
// `svc --version` alone is answered without loading commander or the CLI (start-up, issue 13).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  import("../dist/cli/version.js").then((m) => process.stdout.write(`${m.VERSION}\n`));
} else {
  import("../dist/cli/main.js").then((m) => m.main(args));
}
