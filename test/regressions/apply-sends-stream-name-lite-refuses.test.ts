/**
 * Bug: the client and lite each had their own name rules, and only lite refused a name holding
 * a lone UTF-16 surrogate (UTF-8 cannot carry it). So `svc apply` with a spec naming a stream
 * "a\ud800b" passed its checks, applied the basin and the streams before it, and then failed
 * half-way on lite's 400 (exit 2), the name printed with U+FFFD in place of the surrogate.
 *
 * Now there is one set of name rules (rules/names.ts): the spec is refused before anything is
 * changed, as bad input (exit 7) naming the field and the name, and nothing is created.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc, tempHome } from "../helpers/cli.js";
import { cliEnv, type Lite, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `surrogate-apply-${process.pid}`;

beforeAll(async () => {
  lite = await startLite({ inMemory: true });
});
afterAll(async () => {
  await lite?.stop();
});

describe("svc apply with a stream name holding a lone surrogate", () => {
  it("refuses the spec (exit 7) before changing anything", async () => {
    const home = tempHome();
    const file = join(home, "spec.json");
    writeFileSync(
      file,
      JSON.stringify({ basins: [{ name: basin, streams: [{ name: "good" }, { name: "a\ud800b" }] }] }),
    );
    const r = await runSvc(["apply", "-f", file, "--yes"], { env: cliEnv(lite), home });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain(
      'basins[0].streams[1].name: invalid stream name "a\\ud800b": must be Unicode text, but it holds a lone UTF-16 surrogate',
    );
    const list = await runSvc(["basin", "list", "--json"], { env: cliEnv(lite), home });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).map((b: { name: string }) => b.name)).not.toContain(basin);
  });
});
