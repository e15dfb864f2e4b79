/**
 * Bug: bash completion took the text after the last space on the line as the word to complete,
 * so a stream name holding a space matched nothing once part of it was typed, even when the
 * completion had inserted that part itself, escaped: `svc read svc://basin/my\ e<Tab>` asked
 * the server for names starting with `e` and offered none of `my events`, `my eggs log`. Now
 * the word under the cursor ends at the last space no backslash escapes, and what it stands for
 * (`my e`) is what names are matched against.
 */
import { readFileSync } from "node:fs";
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

/** The names the candidates stand for, as the shell would read each one after `svc:`. */
const AFTER = `for q in "\${COMPREPLY[@]}"; do eval "printf '%s\\\\0' svc:$q"; done > candidates`;

describe("bash completion of a stream name typed with escaped spaces", () => {
  it("matches the whole escaped word and completes it to the name", async () => {
    const bash = await bashCompletion(d);
    for (const name of ["my events", "my eggs log", "myself"]) {
      const c = await d.svc(["stream", "create", `svc://${d.basin}/${name}`]);
      expect(c.code, c.stderr).toBe(0);
    }
    const candidates = (line: string): string[] => {
      const r = bash.complete(line, { after: AFTER });
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(join(bash.dir, "candidates"), "utf8")
        .split("\0")
        .filter((w) => w !== "")
        .sort();
    };
    expect(candidates(`svc read svc://${d.basin}/my\\ e`)).toEqual([
      `svc://${d.basin}/my eggs log`,
      `svc://${d.basin}/my events`,
    ]);
    expect(candidates(`svc read svc://${d.basin}/my\\ ev`)).toEqual([`svc://${d.basin}/my events`]);
    expect(candidates(`svc read svc://${d.basin}/my\\ eggs\\ `)).toEqual([`svc://${d.basin}/my eggs log`]);
    // A plain word still completes as before.
    expect(candidates(`svc read svc://${d.basin}/mys`)).toEqual([`svc://${d.basin}/myself`]);
  });
});
