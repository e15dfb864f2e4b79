/**
 * Bug (user trial): `svc apply` of a spec naming one basin needed the `list-basins` operation
 * (and `list-streams`): a token made for exactly that basin, able to read and change its
 * configs, was refused with 403 before any plan.
 *
 * Now a token that may not list gets a plan for what the spec names: each basin and stream is
 * looked up by its config (404: missing), so create, change and no-op all work. `--prune`
 * still needs the lists (it must find what the spec does not name).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let lite: Lite;
let token: string;
const basin = uniqueBasin("apply1");

beforeAll(async () => {
  lite = await startLite();
  const ops =
    "create-basin,get-basin-config,reconfigure-basin,create-stream,get-stream-config,reconfigure-stream,delete-stream";
  const r = await runSvc(
    ["token", "create", "apply/one", "--basins-exact", basin, "--streams-prefix", "", "--ops", ops],
    { env: cliEnv(lite) },
  );
  expect(r.code, r.stderr).toBe(0);
  token = r.stdout.trim();
}, 30_000);
afterAll(async () => {
  await lite?.stop();
});

describe("svc apply with a token that may not list", () => {
  it("creates, then changes, then finds nothing to change", async () => {
    const env = { ...cliEnv(lite), SVC_ACCESS_TOKEN: token };
    const file = join(scratchDir("svc-apply1-"), "spec.json");
    const write = (retention: string): void =>
      writeFileSync(
        file,
        JSON.stringify({
          basins: [{ name: basin, streams: [{ name: "events", config: { retention_policy: retention } }] }],
        }),
      );
    write("7d");
    const first = await runSvc(["apply", "-f", file], { env });
    expect(first.code, first.stderr).toBe(0);
    expect((await runSvc(["stream", "get", `svc://${basin}/events`, "--json"], { env: cliEnv(lite) })).stdout).toMatch(
      /"age": ?604800/,
    );
    write("14d");
    const drift = await runSvc(["apply", "-f", file, "--dry-run", "--exit-code"], { env });
    expect(drift.code, drift.stderr).toBe(10);
    expect(drift.stdout).toContain("retention_policy");
    expect((await runSvc(["apply", "-f", file], { env })).code).toBe(0);
    const again = await runSvc(["apply", "-f", file, "--dry-run", "--exit-code"], { env });
    expect(again.code, again.stderr).toBe(0);
  });

  it("--prune still needs to list (403, exit 3)", async () => {
    const env = { ...cliEnv(lite), SVC_ACCESS_TOKEN: token };
    const file = join(scratchDir("svc-apply1-"), "spec.json");
    writeFileSync(file, JSON.stringify({ basins: [{ name: basin, streams: [] }] }));
    const r = await runSvc(["apply", "-f", file, "--prune", "--dry-run"], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("list-streams");
  });
});
