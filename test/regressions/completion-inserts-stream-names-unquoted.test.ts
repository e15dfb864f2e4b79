/**
 * Bug: bash completion inserted stream names as they are, unquoted. Stream names may hold any
 * UTF-8, so `svc read svc://basin/a<Tab>` completed a stream named `a b$(touch PWNED)` to
 * `svc://basin/a b$(touch PWNED)`: two words, and pressing Enter ran `touch PWNED`: a stream
 * name chosen by anyone who may create streams in a basin ran a command in the user's shell.
 * A name with a line break came back as two candidates. Now every candidate is quoted for the
 * shell (printf %q), and a name with a control character is not offered at all.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDir } from "../helpers/scratch.js";
import { dataEnv, type DataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => { d = await dataEnv(); }, 60_000);
afterAll(async () => { await d?.stop(); });

describe("bash completion of a stream name that is not a plain word", () => {
  it("quotes it for the shell, so the completed line names the stream and runs nothing", async () => {
    const dir = scratchDir("svc-complq-");
    writeFileSync(join(dir, "svc"), `#!/bin/sh\nexec "${process.execPath}" "${join(import.meta.dirname, "../../bin/svc.js")}" "$@"\n`, { mode: 0o755 });
    const script = join(dir, "svc.bash");
    writeFileSync(script, (await d.svc(["completion", "bash"])).stdout);
    const evil = "ev b$(touch PWNED)'\"`x`";
    for (const name of [evil, "ev line\nbreak"]) {
      const c = await d.svc(["stream", "create", `svc://${d.basin}/${name}`]);
      expect(c.code, c.stderr).toBe(0);
    }
    const line = `svc read svc://${d.basin}/ev`;
    const words = line.split(" ").flatMap((w) => w.split(/(:)/)).filter((w) => w !== "");
    // Complete, then run the completed line the way the shell would on Enter, with `printf` as the command.
    const sh = `cd '${dir}'; source '${script}'; COMP_LINE='${line}'; COMP_POINT=${line.length}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _svc
      printf '%s\\0' "\${COMPREPLY[@]}" > candidates
      [ "\${#COMPREPLY[@]}" = 1 ] && eval "printf '%s' svc:\${COMPREPLY[0]}" > completed; true`;
    const r = spawnSync("bash", ["-c", sh], { env: { ...process.env, ...d.env, PATH: `${dir}:${process.env.PATH}` }, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const candidates = readFileSync(join(dir, "candidates"), "utf8").split("\0").filter((w) => w !== "");
    expect(candidates).toHaveLength(1);
    expect(readFileSync(join(dir, "completed"), "utf8")).toBe(`svc://${d.basin}/${evil}`);
    expect(existsSync(join(dir, "PWNED"))).toBe(false);
  });
});
