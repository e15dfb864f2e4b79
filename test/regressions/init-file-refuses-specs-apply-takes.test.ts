/**
 * Bug: `svc apply` and `svc lite --init-file` each had a spec parser of their own, with their own
 * key lists, and they disagreed: a basin's `scope` and its `stream_cipher` passed `svc apply`
 * (lite serves encrypted streams), but `svc lite --init-file` refused the same file with exit 7
 * (`unknown field "scope"`, "stream encryption is not supported by svc lite").
 *
 * Now both read specs with one grammar (src/rules/spec.ts). This applies the same specs through
 * both faces: what one takes the other takes, with the same stored result, and what one refuses
 * the other refuses. The init file alone refuses a `prune` scope (it never deletes).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, type Lite, liteClient, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const started: Lite[] = [];
afterAll(async () => {
  for (const l of started) await l.stop();
});

const basinConfig = {
  default_stream_config: { retention_policy: "2d", timestamping: { mode: "client-prefer", uncapped: true } },
  create_stream_on_append: true,
  stream_cipher: "aes-256-gcm",
};
const SPEC = {
  basins: [
    {
      name: "one-grammar-basin",
      scope: "cloud:us-east-1",
      config: basinConfig,
      streams: [{ name: "s", config: { storage_class: "express", delete_on_empty: { min_age_secs: 60 } } }],
    },
  ],
};

it("a spec svc apply takes, svc lite --init-file takes, and both store the same", async () => {
  const dir = scratchDir("svc-one-grammar-");
  const spec = join(dir, "spec.json");
  writeFileSync(spec, JSON.stringify(SPEC));
  const fromInit = await startLite({ inMemory: true, args: ["--init-file", spec] });
  started.push(fromInit);
  const viaApply = await startLite({ inMemory: true });
  started.push(viaApply);
  const applied = await runSvc(["apply", "-f", spec], { env: cliEnv(viaApply) });
  expect(applied.code, applied.stderr).toBe(0);

  const stored = await Promise.all(
    [fromInit, viaApply].map(async (l) => {
      const c = liteClient(l);
      const basin = await c.call("GET", "/v1/basins/one-grammar-basin");
      const stream = await c.call("GET", "/v1/streams/s", { basin: "one-grammar-basin" });
      await c.close();
      expect(basin.status, basin.text()).toBe(200);
      expect(stream.status, stream.text()).toBe(200);
      return { basin: basin.json(), stream: stream.json() };
    }),
  );
  expect(stored[0]).toEqual(stored[1]);
  expect(stored[0]!.basin).toMatchObject({ stream_cipher: "aes-256-gcm", create_stream_on_append: true });
  expect(stored[0]!.stream).toMatchObject({ storage_class: "express", delete_on_empty: { min_age_secs: 60 } });
}, 60_000);

it.each([
  ["an unknown stream field", { name: "bad-spec-basin", streams: [{ name: "s", config: { colour: "red" } }] }],
  ["an unknown cipher", { name: "bad-spec-basin", config: { stream_cipher: "rot13" } }],
  ["a scope that is no location", { name: "bad-spec-basin", scope: "mars" }],
  [
    "a duration with a sub-second rest",
    { name: "bad-spec-basin", config: { default_stream_config: { retention_policy: "1500ms" } } },
  ],
])(
  "%s: both faces refuse it, exit 7",
  async (_what, basin) => {
    const dir = scratchDir("svc-one-grammar-bad-");
    const spec = join(dir, "bad.json");
    writeFileSync(spec, JSON.stringify({ basins: [basin] }));
    const lite = await startLite({ inMemory: true });
    started.push(lite);
    const [init, apply] = await Promise.all([
      runSvc(["lite", "--in-memory", "--port", "0", "--init-file", spec]),
      runSvc(["apply", "-f", spec, "--dry-run"], { env: cliEnv(lite) }),
    ]);
    expect([init.code, apply.code], `${init.stderr}\n${apply.stderr}`).toEqual([7, 7]);
  },
  60_000,
);

it("the init file refuses a prune scope, naming svc apply --prune", async () => {
  const dir = scratchDir("svc-one-grammar-prune-");
  const spec = join(dir, "prune.json");
  writeFileSync(spec, JSON.stringify({ ...SPEC, prune: { basin_prefixes: ["one-"] } }));
  const init = await runSvc(["lite", "--in-memory", "--port", "0", "--init-file", spec]);
  expect(init.code).toBe(7);
  expect(init.stderr).toContain("svc apply --prune");
});
