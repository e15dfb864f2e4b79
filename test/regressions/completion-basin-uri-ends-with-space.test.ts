/**
 * Bug (user trial): in bash, `svc read svc://my-ba<Tab>` completed to `svc://my-basin-01 `,
 * with a space after it, where a stream URI was wanted: the user had to delete the space to
 * type `/events`. Now, where a command expects a stream (`<uri>`), a basin completes as
 * `svc://my-basin-01/` and the script asks bash for no space (`compopt -o nospace`); where it
 * expects a basin, the basin completes as a whole word, as before.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDir } from "../helpers/scratch.js";
import { dataEnv, type DataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => { d = await dataEnv(); }, 60_000);
afterAll(async () => { await d?.stop(); });

describe("bash completion of a basin where a stream is expected", () => {
  it("offers svc://basin/ with no space, and a whole basin where a basin is expected", async () => {
    const dir = scratchDir("svc-compl-");
    writeFileSync(join(dir, "svc"), `#!/bin/sh\nexec "${process.execPath}" "${join(import.meta.dirname, "../../bin/svc.js")}" "$@"\n`, { mode: 0o755 });
    const script = join(dir, "svc.bash");
    writeFileSync(script, (await d.svc(["completion", "bash"])).stdout);
    // bash splits words at ':'; compopt is recorded (it works only inside real completion).
    const complete = (line: string): { words: string[]; compopt: string } => {
      const words = line.split(" ").flatMap((w) => w.split(/(:)/)).filter((w) => w !== "");
      const sh = `exec 3>&2; compopt() { echo "compopt $*" >&3; }; source '${script}'; COMP_LINE='${line}'; COMP_POINT=${line.length}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync("bash", ["-c", sh], { env: { ...process.env, ...d.env, PATH: `${dir}:${process.env.PATH}` }, encoding: "utf8" });
      return { words: r.stdout.split("\n").filter((l) => l !== ""), compopt: r.stderr.trim() };
    };
    const partial = `svc://${d.basin.slice(0, -2)}`;
    const read = complete(`svc read ${partial}`);
    expect(read.words).toEqual([`//${d.basin}/`]);
    expect(read.compopt).toBe("compopt -o nospace");
    const get = complete(`svc basin get ${partial}`);
    expect(get.words).toEqual([`//${d.basin}`]);
    expect(get.compopt).toBe("");
  });
});
