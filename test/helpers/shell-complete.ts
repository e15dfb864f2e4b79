/**
 * Completion as a user meets it at an interactive prompt: a real zsh, bash or fish on a
 * pseudo-terminal (util-linux `script`), with the script `svc completion SHELL` prints loaded
 * as its docs say, `svc` on PATH (the built bin/svc.js). Keys are typed (`\t` is Tab), then a
 * key bound to "write the command line to a file" (Ctrl-X): the test reads back what the line
 * became, which is what the user would see after Tab. A shell that is not installed is
 * reported by `shellAvailable` so its test can skip, saying so.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSvc, svcShim } from "./cli.js";
import { ptyAvailable } from "./pty.js";
import { scratchDir } from "./scratch.js";

export type Shell = "zsh" | "bash" | "fish";

export function shellAvailable(shell: Shell): boolean {
  return ptyAvailable && spawnSync(shell, ["-c", "exit 0"]).status === 0;
}

const READY = "SVC-PROMPT-READY>";

/** The rc file each shell starts with: the completion loaded, Ctrl-X dumps the line to `out`. */
function rc(shell: Shell, script: string, out: string): string {
  switch (shell) {
    case "zsh":
      return [
        "autoload -U compinit && compinit -u -D",
        `source '${script}'`,
        `dump() { print -r -- "$BUFFER" > '${out}'; }`,
        "zle -N dump && bindkey '^X' dump",
        `PS1='${READY} '`,
      ].join("\n");
    case "bash":
      return [
        `source '${script}'`,
        `bind -x '"\\C-x": printf "%s\\n" "$READLINE_LINE" > ${out}'`,
        `PS1='${READY} '`,
      ].join("\n");
    case "fish":
      return [
        `source '${script}'`,
        `bind \\cx 'commandline > ${out}'`,
        `function fish_prompt; echo -n '${READY} '; end`,
      ].join("\n");
  }
}

/** Types `keys` at a fresh interactive `shell`, then Ctrl-X; resolves with the command line it holds. */
export async function completeAtPrompt(shell: Shell, keys: string, env: Record<string, string> = {}): Promise<string> {
  const dir = scratchDir(`svc-${shell}-`);
  svcShim(dir);
  const script = join(dir, `svc.${shell}`);
  const printed = await runSvc(["completion", shell]);
  if (printed.code !== 0) throw new Error(`svc completion ${shell}: ${printed.stderr}`);
  writeFileSync(script, printed.stdout);
  const out = join(dir, "line.out");
  const rcFile = join(dir, shell === "zsh" ? ".zshrc" : "rc");
  writeFileSync(rcFile, rc(shell, script, out));
  const command = {
    zsh: "zsh -i",
    bash: `bash --noprofile --rcfile '${rcFile}' -i`,
    fish: `fish --no-config -i -C 'source ${rcFile}'`,
  }[shell];
  const child = spawn("script", ["-qfec", `stty cols 200 rows 40; ${command}`, "/dev/null"], {
    cwd: dir,
    env: {
      PATH: `${dir}:${process.env.PATH ?? ""}`,
      HOME: dir,
      ZDOTDIR: dir,
      XDG_CONFIG_HOME: join(dir, ".config"),
      XDG_DATA_HOME: join(dir, ".local", "share"),
      TERM: "xterm",
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (raw += s));
  const deadline = Date.now() + 20_000;
  const until = async (done: () => boolean, what: string): Promise<void> => {
    while (!done()) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill("SIGKILL");
        throw new Error(`${shell}: ${what} did not happen; terminal so far:\n${raw}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  try {
    await until(() => raw.includes(READY), "the prompt");
    child.stdin.write(keys);
    // Keys are read in order: Ctrl-X runs once the completion has changed the line.
    child.stdin.write("\x18");
    await until(() => existsSync(out) && readFileSync(out, "utf8").endsWith("\n"), "writing the line");
    return readFileSync(out, "utf8").replace(/\n$/, "");
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.on("close", r)));
  }
}
