/**
 * Disagreement (S2's TypeScript SDK against lite): an ensure (PUT) of a basin carries no header
 * that names a dialect, and lite answered it with `svc-provision-result` only; the SDK reads
 * `s2-provision-result`, and without it falls back on the status (201 created, else updated),
 * so `s2.basins.ensure()` of an unchanged basin reported `updated` instead of `noop`. A request
 * that names neither dialect is now answered with both names.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { sdkClient } from "../helpers/s2-sdk.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite({ inMemory: true });
});
afterAll(async () => {
  await lite.stop();
});

it("reports an ensure of an unchanged basin as noop through S2's SDK", async () => {
  const s2 = sdkClient(lite);
  const basin = uniqueBasin("ensure-noop");
  expect((await s2.basins.ensure({ basin })).result).toBe("created");
  expect((await s2.basins.ensure({ basin })).result).toBe("noop");
  expect((await s2.basins.ensure({ basin, config: { createStreamOnRead: true } })).result).toBe("updated");
  expect((await s2.basins.ensure({ basin, config: { createStreamOnRead: true } })).result).toBe("noop");
});
