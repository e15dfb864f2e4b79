/**
 * Bug: bash completion inserted stream names as they are, unquoted. Stream names may hold any
 * UTF-8, so `svc read svc://basin/a<Tab>` completed a stream named `a b$(touch PWNED)` to
 * `svc://basin/a b$(touch PWNED)`: two words, and pressing Enter ran `touch PWNED`: a stream
 * name chosen by anyone who may create streams in a basin ran a command in the user's shell.
 * A name with a line break came back as two candidates. Now every candidate is quoted for the
 * shell (printf %q), and a name with a control character is not offered at all.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { bashCompletion } from "../helpers/bash-completion.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("bash completion of a stream name that is not a plain word", () => {
  it("quotes it for the shell, so the completed line names the stream and runs nothing", async () => {
    const bash = await bashCompletion(d);
    const evil = "ev b$(touch PWNED)'\"`x`";
    for (const name of [evil, "ev line\nbreak"]) {
      const c = await d.svc(["stream", "create", `svc://${d.basin}/${name}`]);
      expect(c.code, c.stderr).toBe(0);
    }
    // Complete, then run the completed line the way the shell would on Enter, with `printf` as the command.
    const r = bash.complete(`svc read svc://${d.basin}/ev`, {
      after: `printf '%s\\0' "\${COMPREPLY[@]}" > candidates
        [ "\${#COMPREPLY[@]}" = 1 ] && eval "printf '%s' svc:\${COMPREPLY[0]}" > completed; true`,
    });
    expect(r.status, r.stderr).toBe(0);
    const candidates = readFileSync(join(bash.dir, "candidates"), "utf8")
      .split("\0")
      .filter((w) => w !== "");
    expect(candidates).toHaveLength(1);
    expect(readFileSync(join(bash.dir, "completed"), "utf8")).toBe(`svc://${d.basin}/${evil}`);
    expect(existsSync(join(bash.dir, "PWNED"))).toBe(false);
  });
});
