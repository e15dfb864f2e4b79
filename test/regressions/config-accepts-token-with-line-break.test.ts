/**
 * Found by a CLI probe (configuration error surfacing late): `svc config set access_token -`
 * stored a token with a line break in it (two lines on stdin) and said ✓; every command after
 * that failed with "Invalid character in header content [authorization]", exit 1. A token goes
 * into an Authorization header: now one that is not printable ASCII without spaces is refused
 * at `config set` (and from SVC_ACCESS_TOKEN) as a configuration error, exit 2, and the token
 * is never echoed.
 */
import { describe, expect, it } from "vitest";
import { runSvc, tempHome } from "../helpers/cli.js";

describe("svc config set access_token", () => {
  it("refuses a token with a line break or a carriage return, storing nothing", async () => {
    const home = tempHome();
    for (const stdin of ["secA\nsecB", "secA\rsecB\n", "sec A\n"]) {
      const r = await runSvc(["config", "set", "access_token", "-"], { stdin, home });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("access_token must be printable ASCII");
      expect(r.stderr).not.toContain("secA");
    }
    const list = await runSvc(["config", "get", "access_token"], { home });
    expect(list.stdout).not.toContain("secA");
  });

  it("refuses such a token from SVC_ACCESS_TOKEN with exit 2", async () => {
    const r = await runSvc(["basin", "list"], {
      env: {
        SVC_ACCOUNT_ENDPOINT: "http://127.0.0.1:9",
        SVC_BASIN_ENDPOINT: "http://127.0.0.1:9",
        SVC_ACCESS_TOKEN: "a\nb",
      },
    });
    expect(r.code).toBe(2);
  });

  it("still takes an ordinary token", async () => {
    const home = tempHome();
    expect((await runSvc(["config", "set", "access_token", "-"], { stdin: "svc_abc.DEF-123_xyz\n", home })).code).toBe(
      0,
    );
  });
});
