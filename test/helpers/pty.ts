/**
 * Runs the built CLI under a pseudo-terminal (util-linux `script -qfec CMD /dev/null`), so
 * stdout and stderr are both a terminal, as at a user's prompt; and renders what the terminal
 * would show (`screen`), interpreting `\r`, `\n`, and the erase-line sequence `ESC[2K`.
 */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { SVC_BIN, tempHome } from "./cli.js";

export const ptyAvailable = spawnSync("script", ["--version"]).status === 0;

export interface PtyResult {
  code: number | null;
  raw: string;
  screen: string[];
}

const quote = (a: string): string => `'${a.replaceAll("'", "'\\''")}'`;

/**
 * Typed at the terminal once it has shown `when`, `afterMs` after that (without `when`:
 * `afterMs` after the start; neither: at once). Inputs are typed in order.
 */
export interface PtyInput {
  when?: string | RegExp;
  afterMs?: number;
  text: string;
}

/**
 * `svc args…` on a terminal; `before` is a shell prefix such as `timeout -s INT 3`; `input` is
 * typed at the terminal when due (PtyInput; `\x03` is Ctrl-C).
 */
export function runSvcInPty(
  args: string[],
  env: Record<string, string>,
  opts: {
    before?: string;
    timeoutMs?: number;
    columns?: number;
    input?: PtyInput | PtyInput[];
    /** Called with everything the terminal got so far, on each arrival (to wait for a sight). */
    watch?: (raw: string) => void;
  } = {},
): Promise<PtyResult> {
  const home = tempHome();
  const cmd = `stty cols ${opts.columns ?? 100} rows 40; ${opts.before ?? ""} ${quote(process.execPath)} ${quote(SVC_BIN)} ${args.map(quote).join(" ")}`;
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qfec", cmd, "/dev/null"], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        XDG_DATA_HOME: join(home, "data"),
        TERM: "xterm",
        ...env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let raw = "";
    const started = performance.now();
    const inputs = [opts.input ?? []].flat();
    let next = 0;
    let delay: NodeJS.Timeout | undefined; // the next input's, once its sight was seen
    const typeDue = (): void => {
      for (let input = inputs[next]; input !== undefined && delay === undefined; input = inputs[next]) {
        const { when, afterMs = 0, text } = input;
        if (when !== undefined && !(typeof when === "string" ? raw.includes(when) : when.test(raw))) return;
        const ms = when === undefined ? started + afterMs - performance.now() : afterMs;
        if (ms > 0) {
          delay = setTimeout(() => {
            delay = undefined;
            child.stdin.write(text);
            next++;
            typeDue();
          }, ms);
          return;
        }
        child.stdin.write(text);
        next++;
      }
    };
    const got = (s: string): void => {
      raw += s;
      opts.watch?.(raw);
      typeDue();
    };
    typeDue();
    child.stdout.setEncoding("utf8").on("data", got);
    child.stderr.setEncoding("utf8").on("data", got);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`pty run timed out: ${raw}`));
    }, opts.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      clearTimeout(delay);
      resolve({ code, raw, screen: render(raw) });
    });
  });
}

/** The lines a terminal shows for `raw` (no scrolling limit; trailing blanks dropped). */
export function render(raw: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\x1b") {
      const m = /^\x1b\[([0-9;?]*)([A-Za-z])/.exec(raw.slice(i));
      if (m) {
        if (m[2] === "K" && m[1] === "2") lines[row] = [];
        else if (m[2] === "K") lines[row] = lines[row]!.slice(0, col);
        i += m[0].length - 1;
      }
      continue;
    }
    if (c === "\r") col = 0;
    else if (c === "\n") {
      row++;
      col = 0;
      lines[row] ??= [];
    } else {
      const line = lines[row]!;
      while (line.length < col) line.push(" ");
      line[col++] = c;
    }
  }
  const out = lines.map((l) => l.join("").trimEnd());
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}
