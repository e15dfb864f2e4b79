/**
 * Found by a second security review: `svc --access-token T` and `svc -k KEY` put a token or an
 * encryption key on the command line, which every local user can read (/proc/<pid>/cmdline,
 * `ps`), and their help said nothing about it. Now both help lines say so and name the safer
 * forms (the environment, the config file, --encryption-key-file).
 */
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

/** The help text of one option, its wrapped lines joined. */
function optionHelp(help: string, flag: string): string {
  const lines = help.split("\n");
  const at = lines.findIndex((l) => l.includes(flag));
  expect(at, `${flag} in the help`).toBeGreaterThanOrEqual(0);
  const out = [lines[at]!];
  for (let i = at + 1; i < lines.length && /^ {20,}\S/.test(lines[i]!); i++) out.push(lines[i]!.trim());
  return out.join(" ");
}

describe("the help of options that carry secrets", () => {
  it("--access-token and -k say that other users can read a command line, and what to use instead", async () => {
    const r = await runSvc(["--help"]);
    expect(r.code).toBe(0);
    const token = optionHelp(r.stdout, "--access-token <token>");
    expect(token).toContain("/proc/<pid>/cmdline");
    expect(token).toContain("SVC_ACCESS_TOKEN");
    const key = optionHelp(r.stdout, "-k, --encryption-key <key>");
    expect(key).toContain("/proc/<pid>/cmdline");
    expect(key).toContain("--encryption-key-file");
  });
});
