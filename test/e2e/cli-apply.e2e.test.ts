/**
 * CI-style script test for `svc apply` against a fresh svc lite: apply a spec twice (the second
 * run changes nothing), `--dry-run --exit-code` exits 0 when in sync and 10 on drift, the plan
 * legend, `--json`, `--export` round trip, and `--prune` behind `--yes`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunOptions, runSvc, tempHome } from "../helpers/cli.js";
import { startLite } from "../helpers/lite.js";

let lite: Awaited<ReturnType<typeof startLite>>;
let env: Record<string, string>;
const home = tempHome();
const svc = (args: string[], opts: RunOptions = {}) => runSvc(args, { home, ...opts, env: { ...env, ...opts.env } });
const tag = `${process.pid}-${Date.now().toString(36)}`;
const B1 = `apply-a-${tag}`;
const B2 = `apply-b-${tag}`;

function spec(retention = "7days") {
  return {
    basins: [
      {
        name: B1,
        config: {
          default_stream_config: {
            storage_class: "standard",
            retention_policy: retention,
            timestamping: { mode: "client-prefer", uncapped: false },
            delete_on_empty: { min_age: "1day" },
          },
          create_stream_on_append: true,
        },
        streams: [{ name: "events", config: { retention_policy: "infinite" } }, { name: "logs/app" }],
      },
      { name: B2, streams: [{ name: "only" }] },
    ],
  };
}

function write(doc: unknown): string {
  const file = join(home, `spec-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

beforeAll(async () => {
  lite = await startLite();
  env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
});
afterAll(async () => {
  await lite?.stop();
});

describe("svc apply (CI script)", () => {
  it("plans, applies, and is idempotent", async () => {
    const file = write(spec());
    const plan = await svc(["apply", "-f", file, "--dry-run", "--exit-code"]);
    expect(plan.code).toBe(10);
    expect(plan.stdout).toContain(`+ basin ${B1}\n`);
    expect(plan.stdout).toContain("    default_stream_config.retention_policy: 1w\n");
    expect(plan.stdout).toContain(`  + stream ${B1}/events\n`);
    expect(plan.stdout).toContain(`  + stream ${B2}/only\n`);
    expect(plan.stderr).toContain("Plan: 5 to create, 0 to change, 0 to delete, 0 unchanged");

    const first = await svc(["apply", "-f", file]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("");
    expect(first.stderr).toContain(`  basin ${B1} (created)`);
    expect(first.stderr).toContain(`  stream ${B1}/logs/app (created)`);

    const second = await svc(["apply", "-f", file]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`  basin ${B1} (config unchanged)`);
    expect(second.stderr).toContain(`  stream ${B1}/events (config unchanged)`);
    expect(second.stderr).toContain("Done: nothing to change");
    expect(second.stderr).not.toMatch(/\(created\)|\(config updated\)/);

    const check = await svc(["apply", "-f", file, "--dry-run", "--exit-code"]);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(`= basin ${B1}`);
    expect(check.stdout).not.toMatch(/^\s*[+~-] /m);

    const stream = JSON.parse((await svc(["stream", "get", `svc://${B1}/logs/app`, "--json"])).stdout);
    expect(stream.config).toMatchObject({ storage_class: "standard", retention_policy: { age: 604_800 } });
  });

  it("detects drift (~, exit 10), fixes it, and reports JSON plans", async () => {
    expect((await svc(["stream", "reconfigure", `svc://${B1}/events`, "--retention", "1d"])).code).toBe(0);
    const file = write(spec("14d"));
    const drift = await svc(["apply", "-f", file, "--dry-run", "--exit-code"]);
    expect(drift.code).toBe(10);
    expect(drift.stdout).toContain(`~ basin ${B1}\n    default_stream_config.retention_policy: 1w → 2w\n`);
    expect(drift.stdout).toContain(`  ~ stream ${B1}/events\n      retention_policy: 1d → infinite\n`);
    expect(drift.stdout).toContain(`  ~ stream ${B1}/logs/app\n      retention_policy: 1w → 2w\n`);
    const json = JSON.parse((await svc(["apply", "-f", file, "--dry-run", "--json"])).stdout);
    expect(json).toMatchObject({ dry_run: true, pending: 3 });
    expect(json.actions).toContainEqual({
      action: "update",
      resource: "stream",
      basin: B1,
      stream: "events",
      changes: [{ field: "retention_policy", from: "1d", to: "infinite" }],
    });
    const fix = await svc(["apply", "-f", file, "--json"]);
    expect(fix.code).toBe(0);
    expect(JSON.parse(fix.stdout)).toMatchObject({ dry_run: false, pending: 3 });
    expect((await svc(["apply", "-f", file, "--dry-run", "--exit-code"])).code).toBe(0);
  });

  it("reads the spec from stdin and exports a spec that applies as a no-op", async () => {
    const viaStdin = await svc(["apply", "-f", "-", "--dry-run", "--exit-code"], {
      stdin: JSON.stringify(spec("14d")),
    });
    expect(viaStdin.code).toBe(0);
    const exported = await svc(["apply", "--export", B1, B2]);
    expect(exported.code).toBe(0);
    const doc = JSON.parse(exported.stdout);
    expect(doc.basins.map((b: { name: string }) => b.name)).toEqual([B1, B2]);
    expect(doc.basins[0].config.default_stream_config.retention_policy).toBe("2w");
    const back = await svc(["apply", "-f", "-", "--dry-run", "--exit-code"], { stdin: exported.stdout });
    expect(back.code).toBe(0);
  });

  it("--prune deletes what the spec omits and owns, only with --yes", async () => {
    expect((await svc(["stream", "create", `svc://${B2}/extra`])).code).toBe(0);
    // Without a prune scope, no basin is pruned: only streams of the basins the spec names.
    const unscoped = await svc(["apply", "-f", write({ basins: [spec().basins[1]] }), "--dry-run", "--prune"]);
    expect(unscoped.stdout).toContain(`  - stream ${B2}/extra`);
    expect(unscoped.stdout).not.toContain(`- basin ${B1}`);
    expect(unscoped.stderr).toMatch(/prune scope: streams of the 1 basin the spec names; no basins/);
    const only = { prune: { basin_prefixes: [`apply-a-${tag}`] }, basins: [spec().basins[1]] };
    const file = write(only);
    const plan = await svc(["apply", "-f", file, "--dry-run", "--prune"]);
    expect(plan.stdout).toContain(`  - stream ${B2}/extra`);
    expect(plan.stdout).toContain(`- basin ${B1}`);
    expect(plan.stderr).toContain(`basins starting with "apply-a-${tag}"`);
    const refused = await svc(["apply", "-f", file, "--prune"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("refusing without --yes");
    expect((await svc(["stream", "get", `svc://${B2}/extra`])).code).toBe(0);
    // Prune only what this test created: the lite is shared with no one else, but stay scoped.
    const scoped = write(only);
    const pruned = await svc(["apply", "-f", scoped, "--prune", "--yes"]);
    expect(pruned.code).toBe(0);
    expect(pruned.stderr).toContain(`  stream ${B2}/extra (deletion requested)`);
    expect(pruned.stderr).toContain(`  basin ${B1} (deletion requested)`);
  });
});
