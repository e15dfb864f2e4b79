/**
 * Bug (user trial): bash completion listed candidates as `//my-basin-01/app-1`: bash splits
 * words at ':' (it is in COMP_WORDBREAKS), so the candidates were what followed `svc:`, and a
 * listing of several showed them cut. zsh and fish completed commands and flags but no basin
 * or stream names.
 *
 * Expected: the bash script takes ':' out of COMP_WORDBREAKS (as npm's completion does for its
 * own characters), so a URI is one word and candidates are whole URIs; zsh and fish complete
 * basin and stream names from the server as bash does (a basin as `svc://basin/` where a stream
 * is expected).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { type BashCompletion, bashCompletion } from "../helpers/bash-completion.js";
import { svcShim } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";

const has = (shell: string): boolean => spawnSync(shell, ["-c", "exit 0"]).status === 0;

let d: DataEnv;
let bash: BashCompletion;
let dir: string;
beforeAll(async () => {
  d = await dataEnv();
  for (const s of ["app-1", "app-2"]) {
    const c = await d.svc(["stream", "create", `svc://${d.basin}/${s}`]);
    expect(c.code, c.stderr).toBe(0);
  }
  bash = await bashCompletion(d);
  dir = scratchDir("svc-compl-shells-");
  svcShim(dir);
  for (const shell of ["zsh", "fish"])
    writeFileSync(join(dir, `svc.${shell}`), (await d.svc(["completion", shell])).stdout);
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

const env = (): NodeJS.ProcessEnv => ({ ...process.env, ...d.env, PATH: `${dir}:${process.env.PATH}` });

describe("bash", () => {
  it("the script takes ':' out of COMP_WORDBREAKS", () => {
    const r = bash.complete("svc read x", { after: 'printf "[%s]" "$COMP_WORDBREAKS"' });
    expect(r.stdout).toMatch(/^\[[^\]]*\]$/);
    expect(r.stdout).not.toContain(":");
  });

  it("lists whole URIs", () => {
    const r = bash.complete(`svc read svc://${d.basin}/app`, {
      colon: false,
      after: `printf '%s\\n' "\${COMPREPLY[@]}"`,
    });
    expect(r.stdout.trim().split("\n")).toEqual([`svc://${d.basin}/app-1`, `svc://${d.basin}/app-2`]);
  });
});

describe.skipIf(!has("zsh"))("zsh", () => {
  /** `_svc` run on `words` with the completion system's functions stubbed to print what they get. */
  function zsh(words: string[]): string[] {
    const script = [
      "compdef() { :; }",
      `source ${join(dir, "svc.zsh")}`,
      "compadd() { local a; for a in \"$@\"; do [[ $a == -- ]] && continue; [[ $a == -S ]] && { print -r -- '(nospace)'; continue }; [[ $a == '' ]] && continue; print -r -- $a; done }",
      "_describe() { :; }; _files() { print -r -- '(files)'; }",
      `words=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; PREFIX='${words.at(-1)}'`,
      "_svc",
    ].join("\n");
    const r = spawnSync("zsh", ["-f", "-c", script], { env: env(), encoding: "utf8" });
    return r.stdout.trim().split("\n");
  }

  it("completes stream URIs and, where a stream is expected, basins as svc://basin/", () => {
    expect(zsh(["svc", "read", `svc://${d.basin}/app`])).toEqual([`svc://${d.basin}/app-1`, `svc://${d.basin}/app-2`]);
    expect(zsh(["svc", "read", `svc://${d.basin.slice(0, -2)}`])).toEqual(["(nospace)", `svc://${d.basin}/`]);
    expect(zsh(["svc", "basin", "get", d.basin.slice(0, -2)])).toEqual([d.basin]);
  });
});

describe.skipIf(!has("fish"))("fish", () => {
  function fish(line: string): string[] {
    const r = spawnSync("fish", ["--no-config", "-c", `source ${join(dir, "svc.fish")}; complete -C '${line}'`], {
      env: env(),
      encoding: "utf8",
    });
    return r.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t")[0]!);
  }

  it("completes stream URIs and basin names", () => {
    expect(fish(`svc read svc://${d.basin}/app`)).toEqual([`svc://${d.basin}/app-1`, `svc://${d.basin}/app-2`]);
    expect(fish(`svc basin get ${d.basin.slice(0, -2)}`)).toContain(d.basin);
  });
});
