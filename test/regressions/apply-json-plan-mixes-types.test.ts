/**
 * Bug (user trial): `svc apply --dry-run --json` gave one field two types: a retention of
 * `"infinite"` was a string, a finite one a number of seconds (`2592000`), so a consumer of the
 * plan had to handle both; `svc diff --json` did the same.
 *
 * Expected: one type per field, as the spec writes it: durations as humantime strings
 * (`"30d"`, `"infinite"`).
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

describe("apply --json and diff --json durations", () => {
  it("are strings, finite or infinite", async () => {
    const dir = scratchDir("svc-plan-json-");
    const spec = join(dir, "spec.json");
    writeFileSync(
      spec,
      JSON.stringify({
        basins: [
          {
            name: d.basin,
            streams: [
              { name: "finite", config: { retention_policy: "30d" } },
              { name: "forever", config: { retention_policy: "infinite" } },
            ],
          },
        ],
      }),
    );
    const r = await d.svc(["apply", "-f", spec, "--dry-run", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { actions: { stream?: string; fields?: Record<string, unknown> }[] };
    const retention = (s: string) => plan.actions.find((a) => a.stream === s)!.fields!.retention_policy;
    expect(retention("finite")).toBe("30d");
    expect(retention("forever")).toBe("infinite");
    expect((await d.svc(["apply", "-f", spec])).code).toBe(0);
    const diff = await d.svc(["diff", `svc://${d.basin}/finite`, `svc://${d.basin}/forever`, "--json"]);
    const changes = (JSON.parse(diff.stdout) as { differences: { path: string; left: unknown; right: unknown }[] })
      .differences;
    expect(changes.find((c) => c.path === "retention_policy")).toEqual({
      path: "retention_policy",
      left: "30d",
      right: "infinite",
    });
  });
});
