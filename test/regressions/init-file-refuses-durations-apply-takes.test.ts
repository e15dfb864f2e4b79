/**
 * Bug: svc and svc lite read durations with two grammars. `"min_age": "0"` and `"90000ms"` pass
 * `svc apply` but `svc lite --init-file` refused them (exit 7), and lite's settings refused
 * `--storage-timeout 2000ms`, which svc's own flags would take: the same spec worked with one face
 * and not the other.
 *
 * Now both read durations with one grammar (src/rules/durations.ts), and this runs the same
 * spec through both faces.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { STORAGE_CLASSES, TIMESTAMPING_MODES } from "../../src/types.js";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, type Lite, liteClient, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const started: Lite[] = [];
afterAll(async () => {
  for (const l of started) await l.stop();
});

it("a spec svc apply takes, svc lite --init-file takes too, with the same durations", async () => {
  const dir = scratchDir("svc-durations-");
  const spec = join(dir, "spec.json");
  const config = {
    storage_class: "standard",
    retention_policy: "90000ms",
    delete_on_empty: { min_age: "0" },
  };
  writeFileSync(spec, JSON.stringify({ basins: [{ name: "durations-basin", streams: [{ name: "s", config }] }] }));

  const fromInit = await startLite({ args: ["--init-file", spec] });
  started.push(fromInit);
  const viaApply = await startLite();
  started.push(viaApply);
  const applied = await runSvc(["apply", "-f", spec], { env: cliEnv(viaApply) });
  expect(applied.code, applied.stderr).toBe(0);

  const configs = await Promise.all(
    [fromInit, viaApply].map(async (l) => {
      const c = liteClient(l);
      const r = await c.call("GET", "/v1/streams/s", { basin: "durations-basin" });
      await c.close();
      expect(r.status, r.text()).toBe(200);
      return r.json();
    }),
  );
  expect(configs[0]).toEqual(configs[1]);
  expect(configs[0]).toMatchObject({ retention_policy: { age: 90 }, delete_on_empty: { min_age_secs: 0 } });
}, 60_000);

it("every storage class and timestamping mode one face takes, the other takes; a value neither knows, both refuse", async () => {
  const dir = scratchDir("svc-spec-values-");
  const streams = STORAGE_CLASSES.flatMap((storage_class) =>
    TIMESTAMPING_MODES.map((mode) => ({
      name: `${storage_class}-${mode}`,
      config: { storage_class, timestamping: { mode } },
    })),
  );
  const spec = join(dir, "spec.json");
  writeFileSync(spec, JSON.stringify({ basins: [{ name: "spec-values-basin", streams }] }));
  const fromInit = await startLite({ args: ["--init-file", spec] });
  started.push(fromInit);
  const viaApply = await startLite();
  started.push(viaApply);
  const applied = await runSvc(["apply", "-f", spec], { env: cliEnv(viaApply) });
  expect(applied.code, applied.stderr).toBe(0);
  for (const s of streams)
    for (const l of [fromInit, viaApply]) {
      const c = liteClient(l);
      const r = await c.call("GET", `/v1/streams/${s.name}`, { basin: "spec-values-basin" });
      await c.close();
      expect(r.json(), s.name).toMatchObject({
        storage_class: s.config.storage_class,
        timestamping: { mode: s.config.timestamping.mode },
      });
    }

  const bad = join(dir, "bad.json");
  writeFileSync(
    bad,
    JSON.stringify({
      basins: [{ name: "spec-values-bad", streams: [{ name: "s", config: { storage_class: "cold" } }] }],
    }),
  );
  const init = await runSvc(["lite", "--in-memory", "--port", "0", "--init-file", bad]);
  const apply = await runSvc(["apply", "-f", bad, "--dry-run"], { env: cliEnv(viaApply) });
  expect([init.code, apply.code]).toEqual([7, 7]);
}, 60_000);
