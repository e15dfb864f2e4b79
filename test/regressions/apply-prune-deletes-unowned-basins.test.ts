/**
 * Bug: `apply --prune` planned to delete every basin in the account that
 * the spec did not name, including basins other teams or tools own. Pruning is now limited to
 * what the spec declares it owns: streams of the basins it names, and basins matching its
 * `"prune": {"basin_prefixes": [...]}`; the plan says so.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("apply --prune deletes only what the spec owns", () => {
  it("a basin outside the prune scope survives; one inside it goes", async () => {
    const tag = Date.now().toString(36);
    const [mine, old, bystander] = [`team-a-${tag}`, `team-a-old-${tag}`, `team-b-${tag}`];
    for (const b of [mine, old, bystander]) expect((await d.svc(["basin", "create", b])).code).toBe(0);
    const spec = join(scratchDir("svc-prune-"), "spec.json");
    writeFileSync(spec, JSON.stringify({ prune: { basin_prefixes: ["team-a-"] }, basins: [{ name: mine }] }));
    const plan = await d.svc(["apply", "-f", spec, "--prune", "--dry-run"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`- basin ${old}`);
    expect(plan.stdout).not.toContain(bystander);
    expect(plan.stdout).not.toContain(`- basin ${d.basin}`);
    expect(plan.stderr).toContain('prune scope: streams of the 1 basin the spec names; basins starting with "team-a-"');
    const done = await d.svc(["apply", "-f", spec, "--prune", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    const list = (await d.svc(["basin", "list", "--json"])).stdout;
    const live = (JSON.parse(list) as { name: string; state?: string; deleted_at?: string | null }[])
      .filter((b) => b.state !== "deleting" && !b.deleted_at)
      .map((b) => b.name);
    expect(live).toContain(bystander);
    expect(live).toContain(d.basin);
    expect(live).toContain(mine);
    expect(live).not.toContain(old);
  });
});
