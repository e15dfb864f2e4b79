/**
 * The guides under docs/ are reachable from the command line: `svc help topics` lists them,
 * `svc help <topic>` prints the page as it is in the repository (also through a symlink to
 * bin/svc.js, as `npm link` makes), and a command's help names the guide it belongs to.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { TOPICS } from "../../src/cli/help-topics.js";
import { runSvc, SVC_BIN } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";

const DOCS = resolve(import.meta.dirname, "../../docs");

describe("svc help <topic>", () => {
  it("svc help topics lists every guide", async () => {
    const r = await runSvc(["help", "topics"]);
    expect(r.code).toBe(0);
    for (const t of TOPICS) expect(r.stdout).toMatch(new RegExp(`^  ${t.name} +\\S`, "m"));
  });

  it("svc help <topic> prints the page byte for byte", async () => {
    for (const t of TOPICS) {
      const r = await runSvc(["help", t.name]);
      expect([t.name, r.code, r.stderr]).toEqual([t.name, 0, ""]);
      expect(r.stdout).toBe(readFileSync(join(DOCS, `${t.name}.md`), "utf8"));
    }
  });

  it("finds the pages through a symlink to bin/svc.js (npm link)", () => {
    const dir = scratchDir("svc-help-link-");
    const link = join(dir, "svc.js");
    symlinkSync(SVC_BIN, link);
    const r = spawnSync(process.execPath, [link, "help", "records"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(DOCS, "records.md"), "utf8"));
  });

  it("a command's help names its guide, and the program's help says where the guides are", async () => {
    const append = await runSvc(["append", "--help"]);
    expect(append.stdout).toContain("Guide: `svc help records` (docs/records.md)");
    const create = await runSvc(["basin", "create", "--help"]);
    expect(create.stdout).toContain("Guide: `svc help resources` (docs/resources.md)");
    const top = await runSvc(["--help"]);
    expect(top.stdout).toContain("`svc help topics`");
  });
});
