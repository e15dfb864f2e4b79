/**
 * bash completion as a user meets it: the script `svc completion bash` prints, sourced in a
 * bash whose PATH finds the built `svc`, and `_svc` run on one command line. The script takes
 * ':' out of COMP_WORDBREAKS, so a URI is one word (`colon: false`); a bash where something
 * put it back splits words at ':' too (the default here, the harder case). `before` and `after`
 * are shell lines run around `_svc`.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DataEnv } from "../e2e/cli-data-setup.js";
import { svcShim } from "./cli.js";
import { scratchDir } from "./scratch.js";

export interface BashCompletion {
  /** A scratch dir, the shell's working dir. */
  dir: string;
  /** `env` replaces the data env's endpoints and token (a server that is away, say). */
  complete(
    line: string,
    opts?: { before?: string; after?: string; env?: Record<string, string>; colon?: boolean },
  ): SpawnSyncReturns<string>;
}

export async function bashCompletion(d: DataEnv): Promise<BashCompletion> {
  const dir = scratchDir("svc-compl-");
  svcShim(dir);
  const script = join(dir, "svc.bash");
  writeFileSync(script, (await d.svc(["completion", "bash"])).stdout);
  return {
    dir,
    complete(line, { before = "", after = "", env = d.env, colon = true } = {}) {
      // Words split as readline does: at spaces no backslash escapes, and at ':'; kept as typed.
      const words = line
        .split(/(?<!\\) /)
        .flatMap((w) => (colon ? w.split(/(:)/) : [w]))
        .filter((w) => w !== "");
      const sh = [
        `cd '${dir}'`,
        before,
        `source '${script}'`,
        `COMP_LINE='${line}'; COMP_POINT=${line.length}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}`,
        "_svc",
        after,
      ].join("\n");
      return spawnSync("bash", ["-c", sh], {
        env: { ...process.env, ...env, PATH: `${dir}:${process.env.PATH}` },
        encoding: "utf8",
      });
    },
  };
}
