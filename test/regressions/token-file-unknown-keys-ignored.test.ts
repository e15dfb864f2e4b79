/**
 * Bug (user trial): `svc token create --from-file` ignored unknown keys: `{"scope":{"basinz":…}}`
 * issued a token that covered nothing, exit 0. A token that could reach nothing (`--ops read`
 * and no basins) was issued without a word.
 *
 * Now the file is checked like an apply spec: an unknown field or a value of the wrong shape is
 * an error naming its JSON path (exit 7) and nothing is issued; a token whose operations can
 * act on nothing in its scope is issued with a warning that says what is missing.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OP_GROUPS } from "../../src/types.js";
import { GROUP_OPS } from "../helpers/authz-model.js";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, type Lite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let lite: Lite;
let env: Record<string, string>;
const dir = scratchDir("svc-token-file-");
beforeAll(async () => {
  lite = await startLite();
  env = cliEnv(lite);
}, 30_000);
afterAll(async () => {
  await lite?.stop();
});

const file = (name: string, doc: unknown): string => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(doc));
  return p;
};
const listed = async (id: string): Promise<unknown[]> =>
  JSON.parse((await runSvc(["token", "list", "--prefix", id, "--json"], { env })).stdout);

describe("svc token create --from-file", () => {
  it.each([
    ["typo", { scope: { basinz: { prefix: "" }, ops: ["read"] } }, 'scope.basinz: unknown field "basinz"'],
    ["top", { scop: { ops: ["read"] } }, 'scop: unknown field "scop"'],
    [
      "op",
      { scope: { basins: { prefix: "" }, streams: { prefix: "" }, ops: ["reed"] } },
      'scope.ops[0]: unknown operation "reed"',
    ],
    ["set", { scope: { basins: { prefx: "a" }, ops: ["read"] } }, 'scope.basins.prefx: unknown field "prefx"'],
    [
      "group",
      { scope: { op_groups: { stream: { read: "yes" } } } },
      "scope.op_groups.stream.read: must be true or false",
    ],
  ])("refuses a %s error with its JSON path (exit 7) and issues nothing", async (name, doc, message) => {
    const id = `file/${name}`;
    const r = await runSvc(["token", "create", id, "--from-file", file(`${name}.json`, doc)], { env });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
    expect(await listed(id)).toEqual([]);
  });

  it("warns when the token can reach nothing, and not when it can", async () => {
    const none = await runSvc(["token", "create", "reach/none", "--ops", "read"], { env });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).toContain(
      'access token "reach/none" can reach nothing: its operations (read) act on basins and streams, but its scope holds none',
    );
    const some = await runSvc(
      ["token", "create", "reach/some", "--ops", "read", "--basins-prefix", "", "--streams-prefix", ""],
      { env },
    );
    expect(some.code, some.stderr).toBe(0);
    expect(some.stderr).not.toContain("can reach nothing");
    const metrics = await runSvc(["token", "create", "reach/metrics", "--ops", "account-metrics"], { env });
    expect(metrics.stderr).not.toContain("can reach nothing");
  });

  it("describes the operation groups exactly as lite enforces them", async () => {
    // The one table (lite enforces it, the CLI shows it) against the test model of protocol.md §9.2.
    expect(OP_GROUPS).toEqual(GROUP_OPS);
    const help = await runSvc(["token", "create", "--help"]);
    expect(help.stdout).toContain("stream=w   append, trim, fence");
  });
});
