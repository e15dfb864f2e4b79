/**
 * Bug (issue 42 item 5): S2's command spellings that svc accepts as aliases (`delete-basin`,
 * `delete-stream`, `revoke-access-token`) did not keep S2's contract: S2's CLI never asks
 * there, so a script written for it, run without a terminal, failed on svc's `--yes` rule
 * ("refusing without --yes", exit 2) and deleted nothing.
 *
 * Now S2's spellings behave as S2's CLI: they do not ask. svc's own spellings (`basin delete`,
 * `stream delete`, `token revoke`) keep svc's rule. The expectations are those of S2's CLI
 * integration tests, as svc commands against a real lite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { uniqueBasin } from "../helpers/lite.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("S2's spellings without a terminal", () => {
  it("delete-stream deletes without --yes; stream delete still refuses", async () => {
    const uri = await d.newStream("s2del");
    const svcWay = await d.svc(["stream", "delete", uri]);
    expect(svcWay.code).toBe(2);
    expect(svcWay.stderr).toContain("refusing without --yes");
    const s2Way = await d.svc(["delete-stream", uri]);
    expect(s2Way.code, s2Way.stderr).toBe(0);
    // Gone, or being deleted (5, stream_deletion_pending).
    expect([4, 5]).toContain((await d.svc(["stream", "get", uri])).code);
  });

  it("delete-basin deletes without --yes; basin delete still refuses", async () => {
    const basin = uniqueBasin("s2delb");
    expect((await d.svc(["create-basin", basin])).code).toBe(0);
    expect((await d.svc(["basin", "delete", basin])).code).toBe(2);
    const r = await d.svc(["delete-basin", basin]);
    expect(r.code, r.stderr).toBe(0);
    const got = await d.svc(["basin", "get", basin]);
    expect(got.code === 4 || /deleting/.test(got.stdout)).toBe(true);
  });

  it("revoke-access-token revokes without --yes; token revoke still refuses", async () => {
    const id = `s2-revoke-${Date.now().toString(36)}`;
    const made = await d.svc(["token", "create", id, "--basins-prefix", "", "--op-groups", "account=r"]);
    expect(made.code, made.stderr).toBe(0);
    expect((await d.svc(["token", "revoke", id])).code).toBe(2);
    const r = await d.svc(["revoke-access-token", id]);
    expect(r.code, r.stderr).toBe(0);
    expect((await d.svc(["token", "list", "--json"])).stdout).not.toContain(id);
  });
});
