/**
 * Bug (user trial): `svc trim` ran without `--yes` and without a terminal, while `stream
 * delete` and `token revoke` refused ("refusing without --yes"); `trim --keep-last 100` on a
 * 3-record stream appended a trim that removed nothing.
 *
 * Now one rule holds for every destructive command (basin delete, stream delete, token revoke,
 * trim, apply --prune): on a terminal it asks, and without one it refuses unless `--yes`
 * (exit 2); "no" exits 1 with nothing done. A trim that would remove nothing appends nothing
 * and says so.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

async function threeRecords(): Promise<string> {
  const uri = await d.newStream("trim");
  const put = await d.svc(["append", uri, "-q"], { stdin: "a\nb\nc\n" });
  expect(put.code, put.stderr).toBe(0);
  return uri;
}

const tail = async (uri: string): Promise<string> => (await d.svc(["check-tail", uri, "--seq-only"])).stdout.trim();

describe("destructive commands without a terminal", () => {
  it("trim refuses without --yes (exit 2) and trims nothing", async () => {
    const uri = await threeRecords();
    const r = await d.svc(["trim", uri, "2"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("refusing without --yes");
    expect(await tail(uri)).toBe("3");
    const ok = await d.svc(["trim", uri, "2", "--yes"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await tail(uri)).toBe("4");
  });

  it("apply --prune refuses the same way", async () => {
    const uri = await threeRecords();
    const spec = join(scratchDir("svc-prune-"), "spec.json");
    writeFileSync(spec, JSON.stringify({ basins: [{ name: d.basin, config: {}, streams: [] }] }));
    const r = await d.svc(["apply", "-f", spec, "--prune"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("refusing without --yes");
    expect((await d.svc(["stream", "get", uri])).code).toBe(0);
  });

  it("a trim that would remove nothing appends nothing", async () => {
    const uri = await threeRecords();
    const r = await d.svc(["trim", uri, "--keep-last", "100", "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("nothing to trim");
    expect(await tail(uri)).toBe("3");
  });
});

describe.skipIf(!ptyAvailable)("destructive commands on a terminal", () => {
  it("trim asks, and 'n' exits 1 with nothing trimmed", async () => {
    const uri = await threeRecords();
    const r = await runSvcInPty(["trim", uri, "2"], d.env, { input: { when: "[y/N]", text: "n\n" } });
    expect(r.raw).toContain("remove 2 records (0..1)? [y/N]");
    expect(r.code, r.raw).toBe(1);
    expect(await tail(uri)).toBe("3");
  }, 30_000);
});
