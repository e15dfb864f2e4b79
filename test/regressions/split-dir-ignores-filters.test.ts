/**
 * Found by a CLI probe (wrong data): `svc read --split-dir DIR` wrote every record, ignoring
 * `--commands skip|stderr`, `--grep` and `--filter`, which decide what `svc read` prints
 * otherwise: trim command records and records the filter excluded landed in DIR. Now one
 * rule decides for both outputs.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, eventually, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
let env: Record<string, string>;
const basin = `split-filter-${process.pid}`;
const work = mkdtempSync(join(tmpdir(), "svc-splitf-"));

beforeAll(async () => {
  lite = await startLite({ inMemory: true, env: { SVC_LITE_SWEEP_MS: "100" } });
  env = cliEnv(lite);
  const c = liteClient(lite);
  await createStreams(lite, basin, ["s"]);
  expect(
    (
      await c.call("POST", "/v1/streams/s/records", {
        basin,
        json: { records: Array.from({ length: 10 }, (_, i) => ({ body: String(i) })) },
      })
    ).status,
  ).toBe(200);
  expect((await runSvc(["trim", `svc://${basin}/s`, "3", "-y"], { env })).code).toBe(0); // a command record at 10
  // A trim is carried out by the sweep a period later (protocol.md §7.7): wait until reads start at 3.
  await eventually(async () => {
    const r = await c.call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 0, count: 1 } });
    return r.status === 200 && r.json().records[0]?.seq_num === 3;
  }, 10_000);
});

afterAll(async () => {
  await lite?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** One `.bin` file per record (each has a `.json` beside it), in seq order. */
const bins = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".bin"))
    .sort((a, b) => parseInt(a) - parseInt(b));

describe("svc read --split-dir", () => {
  it("writes only what --commands and --grep let through", async () => {
    const dir = join(work, "grep");
    const r = await runSvc(
      ["read", `svc://${basin}/s`, "-s", "0", "-e", "--split-dir", dir, "--commands", "skip", "--grep", "^5$"],
      { env },
    );
    expect(r.code).toBe(0);
    expect(bins(dir)).toEqual(["5.bin"]);
  });

  it("leaves command records out with --commands skip, and shows them on stderr with --commands stderr", async () => {
    const skip = join(work, "skip");
    expect(
      (await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-e", "--split-dir", skip, "--commands", "skip"], { env }))
        .code,
    ).toBe(0);
    const stderr = join(work, "stderr");
    const r = await runSvc(
      ["read", `svc://${basin}/s`, "-s", "0", "-e", "--split-dir", stderr, "--commands", "stderr"],
      { env },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/trim/);
    const all = join(work, "all");
    expect(
      (await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-e", "--split-dir", all, "--commands", "show"], { env }))
        .code,
    ).toBe(0);
    const stored = bins(all); // what the read returns (the trim hides 0..2 once applied)
    expect(stored).toHaveLength(8); // 3..9, and the trim command record
    expect(bins(skip)).toHaveLength(7);
    expect(bins(stderr)).toEqual(bins(skip));
  });
});
