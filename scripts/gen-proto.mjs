// Generates static protobufjs code for proto/svc/v1/svc.proto into src/wire/gen/.
// Static code means the CLI never parses a .proto at run time (fast start-up).
// Skips the work when the output is newer than the schema.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const schema = join(root, "proto/svc/v1/svc.proto");
const outDir = join(root, "src/wire/gen");
const js = join(outDir, "svc.js");
const dts = join(outDir, "svc.d.ts");
const bin = (name) => join(root, "node_modules/.bin", name);

const fresh = (file) => existsSync(file) && statSync(file).mtimeMs >= statSync(schema).mtimeMs;
if (fresh(js) && fresh(dts) && !process.argv.includes("--force")) process.exit(0);

mkdirSync(outDir, { recursive: true });
execFileSync(
  bin("pbjs"),
  [
    "-t",
    "static-module",
    "-w",
    "es6",
    "--no-create",
    "--no-verify",
    "--no-convert",
    "--no-delimited",
    "--no-service",
    "--no-typeurl",
    "-o",
    js,
    schema,
  ],
  { stdio: "inherit" },
);
// Node ESM needs the explicit file extension of the protobufjs runtime.
writeFileSync(js, readFileSync(js, "utf8").replace(/from "protobufjs\/minimal"/, 'from "protobufjs/minimal.js"'));
execFileSync(bin("pbts"), ["--no-comments", "-o", dts, js], { stdio: "inherit" });
