/**
 * Bug (user trial): in bash, `svc read svc://my-ba<Tab>` completed to `svc://my-basin-01 `,
 * with a space after it, where a stream URI was wanted: the user had to delete the space to
 * type `/events`. Now, where a command expects a stream (`<uri>`), a basin completes as
 * `svc://my-basin-01/` and the script asks bash for no space (`compopt -o nospace`); where it
 * expects a basin, the basin completes as a whole word, as before.
 */
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

describe("bash completion of a basin where a stream is expected", () => {
  it("offers svc://basin/ with no space, and a whole basin where a basin is expected", async () => {
    const bash = await bashCompletion(d);
    // compopt is recorded (it works only inside real completion).
    const complete = (line: string): { words: string[]; compopt: string } => {
      const r = bash.complete(line, {
        before: `exec 3>&2; compopt() { echo "compopt $*" >&3; }`,
        after: `printf '%s\\n' "\${COMPREPLY[@]}"`,
      });
      return { words: r.stdout.split("\n").filter((l) => l !== ""), compopt: r.stderr.trim() };
    };
    const partial = `svc://${d.basin}`.slice(0, -2);
    const read = complete(`svc read ${partial}`);
    expect(read.words).toEqual([`//${d.basin}/`]);
    expect(read.compopt).toBe("compopt -o nospace");
    const get = complete(`svc basin get ${partial}`);
    expect(get.words).toEqual([`//${d.basin}`]);
    expect(get.compopt).toBe("");
  });
});
