/**
 * Bug: `svc lite --init-file` failures exited 1, where `svc apply` gives 2 for a file it cannot
 * read and 7 for a spec that does not parse, and said no more than the errno or the parse error.
 *
 * Now a missing (or directory) init file is exit 2 naming the flag and the file, and a bad spec
 * exit 7 (bad_input), each with a hint (`svc apply --schema`, `svc apply --dry-run`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";

it("a missing init file is exit 2, a directory too, a bad spec exit 7, each with a hint", async () => {
  const dir = scratchDir("svc-initfile-");
  const missing = await runSvc(["lite", "--in-memory", "--port", "0", "--init-file", join(dir, "nope.json")]);
  expect(missing.code, missing.stderr).toBe(2);
  expect(missing.stderr).toContain(`error: --init-file ${join(dir, "nope.json")}: cannot read it (no such file)`);
  expect(missing.stderr).toContain("hint: ");
  const directory = await runSvc(["lite", "--in-memory", "--port", "0", "--init-file", dir]);
  expect(directory.code, directory.stderr).toBe(2);
  const spec = join(dir, "spec.json");
  writeFileSync(spec, JSON.stringify({ basins: [{ name: "init-basin", bogus: 1 }] }));
  const bad = await runSvc(["lite", "--in-memory", "--port", "0", "--init-file", spec]);
  expect(bad.code, bad.stderr).toBe(7);
  expect(bad.stderr).toContain('unknown field "bogus"');
  expect(bad.stderr).toContain("hint: the init file is an `svc apply` spec");
}, 60_000);
